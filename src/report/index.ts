// The report's public API: render a results store as one self-contained HTML page plus CSV / JSON
// tables, or write them into a folder.
export { renderReport, writeReport, type ReportInput, type RenderedReport, type ReportTableOutput, type WriteReportOptions, type WrittenReport }
  from './render.ts';
export type { PaperCell, PaperColumn, PaperTable } from './paper-table.ts';
export { studyA, CONTROL_ATTRIBUTE, type StudyA } from './study-a.ts';
export { studyB, methodOf, rowLabel, STUDY_B_METHODS, TEST_SET_ROLES, type StudyB, type StudyBCell, type StudyBMethod,
  type TestSetRole } from './study-b.ts';
export { loadReportData, type ReportData } from './report-data.ts';
export { escapeHtml } from './escape.ts';
