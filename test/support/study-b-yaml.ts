// A study-B study file on the two training sets the config tests use (sentiment and summary; parsed,
// never run), with the given method lines and extra lines for its evaluation section.
export function studyBYaml(protocol: string, methods: string[], evaluation = ''): string {
  return `
name: s
protocol: ${protocol}
models: [{ id: m, path: models/m }]
training:
  - { id: sentiment-2000, data: "study-b/sentiment/amazon:train-2000", task: study-b/sentiment }
  - { id: summary-2000, data: "study-b/summary/xsum:train-2000", task: study-b/summary }
methods:
${methods.map((m) => `  - ${m}`).join('\n')}
evaluation:
  testSets: [study-b/sentiment/sst2:test]
${evaluation}
`;
}
