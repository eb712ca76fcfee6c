// Escaping for text placed into the report's HTML (element content and quoted attribute values).
// Every string that came from a store, a study file or a flag goes through here before it is
// written into the page.

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c]);
}
