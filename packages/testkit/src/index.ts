export { findBinary } from './find-binary';
export { findFreePort } from './free-port';
export { startLocalPostgres, waitFor, type LocalPostgres, type LocalPostgresOptions } from './local-postgres';
export { startLocalReplica } from './local-replica';
export { startLocalRedis, type LocalRedis } from './local-redis';
export { isContainerRuntimeAvailable } from './container-runtime';
export { startTestPostgres, startTestRedis, type RunningServer } from './servers';
export { createTestDatabase, testRedisUrl, uniqueId, type DatabaseTemplate } from './test-database';
export { openRawRequest, type RawRequest, type RawResponse } from './raw-request';
