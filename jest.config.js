// One jest run for the whole repo: a project per workspace so `--selectProjects` can narrow it.
// Tests import workspace packages from source (moduleNameMapper), so no build is needed before jest.
const { availableParallelism } = require('node:os');
const transform = {
  '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } } }],
};
const moduleNameMapper = {
  '^@acme/common$': '<rootDir>/../../packages/common/src/index.ts',
  '^@acme/common/(.*)$': '<rootDir>/../../packages/common/src/$1',
  '^@acme/testkit$': '<rootDir>/../../packages/testkit/src/index.ts',
};
const project = (dir, name, extra = {}) => ({
  displayName: name,
  rootDir: `<rootDir>/${dir}`,
  testMatch: ['<rootDir>/test/**/*.test.ts', '<rootDir>/src/**/*.test.ts'],
  transform,
  moduleNameMapper,
  testEnvironment: 'node',
  ...extra,
});

module.exports = {
  rootDir: __dirname,
  transform,
  reporters: ['default', '<rootDir>/packages/testkit/summary-reporter.cjs'],
  // Suites mostly wait on Postgres, which runs in its own processes: on 2 cores two workers took
  // search-store from 78 s to 59 s (one worker, what '50%' gave, left a core idle). Capped so that a
  // big machine does not open hundreds of connections to the one server.
  maxWorkers: Math.min(8, Math.max(2, availableParallelism())),
  testTimeout: 30000,
  // One Postgres server and one Redis server for the whole run; each suite makes its own database,
  // copied from its service's schema migrated once per run (packages/testkit/src/test-database.ts).
  globalSetup: '<rootDir>/packages/testkit/src/global-setup.ts',
  globalTeardown: '<rootDir>/packages/testkit/src/global-teardown.ts',
  projects: [
    project('packages/common', 'common'),
    project('packages/testkit', 'testkit'),
    project('packages/devstack', 'devstack'),
    project('services/auth-server', 'auth-server'),
    project('services/search-store', 'search-store'),
    project('packages/reliability', 'reliability', {
      moduleNameMapper: {
        ...moduleNameMapper,
        '^@acme/devstack/dist/(.*)$': '<rootDir>/../../packages/devstack/src/$1',
      },
    }),
  ],
};
