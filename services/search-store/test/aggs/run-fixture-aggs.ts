import { EsError } from '@acme/common';
import { runAggregations } from '../../src/aggs/run-aggregations';
import type { AggFixture } from './aggs-fixture';

export type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The `aggregations` over every fixture document, as the response body carries them (JSON). */
export async function runFixtureAggs(fx: AggFixture, body: unknown): Promise<Json> {
  return JSON.parse(JSON.stringify(await runAggregations(fx.pool, fx.ctx, fx.all, body))) as Json;
}

/** The Elasticsearch error that `body` fails with over the fixture; an answer, or any other error, throws. */
export async function fixtureAggsFailure(
  fx: AggFixture,
  body: unknown,
): Promise<{ status: number; type: string; reason: string }> {
  try {
    await runFixtureAggs(fx, body);
  } catch (error) {
    if (error instanceof EsError) return { status: error.status, type: error.type, reason: error.message };
    throw error;
  }
  throw new Error('expected an error');
}
