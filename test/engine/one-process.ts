// npm test runs this folder's test files in this one process (test/support/run-test-files.ts).
import { runTestFiles } from '../support/run-test-files.ts';

await runTestFiles(import.meta.dirname);
