// Starts the openai-mock-api server (an OpenAI-compatible mock server from
// the npm registry) on 127.0.0.1 and a free port, with the configuration
// in the JSON file named by the first argument, and prints
// "offshoot-e2e-listening <port>". It exits when its standard input closes,
// so it never outlives the test that started it.
'use strict';
const fs = require('fs');
const { MockServer, ConfigLoader, Logger } = require('openai-mock-api');

const config = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const logger = new Logger(undefined, false);
new ConfigLoader(logger).validateConfig(config);
const server = new MockServer(config, logger);
const listener = server.app.listen(0, '127.0.0.1', () => {
  process.stdout.write(`offshoot-e2e-listening ${listener.address().port}\n`);
});
listener.on('error', (err) => {
  process.stderr.write(`cannot listen: ${err}\n`);
  process.exit(1);
});
process.stdin.on('end', () => process.exit(0));
process.stdin.on('close', () => process.exit(0));
process.stdin.resume();
