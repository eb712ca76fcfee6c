// Run as a child process by hub.test.ts, which kills it mid-download: pulls one repo and exits.
import { pullRepo } from '../../src/data/hub.ts';

const [endpoint, cacheDir, repo] = process.argv.slice(2);
await pullRepo({ repo, repoType: 'dataset' }, { endpoint, cacheDir, offline: false, retries: 0 });
process.stdout.write('done\n');
