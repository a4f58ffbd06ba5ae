// One jest run for the whole repo: a project per workspace so `--selectProjects` can narrow it.
// Tests import workspace packages from source (moduleNameMapper), so no build is needed before jest.
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
  maxWorkers: process.env.CI ? 2 : '50%',
  testTimeout: 30000,
  // One Postgres server and one Redis server for the whole run; each suite makes its own database.
  globalSetup: '<rootDir>/packages/testkit/src/global-setup.ts',
  globalTeardown: '<rootDir>/packages/testkit/src/global-teardown.ts',
  projects: [
    project('packages/common', 'common'),
    project('packages/testkit', 'testkit'),
    project('packages/devstack', 'devstack'),
    project('services/auth-server', 'auth-server'),
    project('services/search-store', 'search-store'),
  ],
};
