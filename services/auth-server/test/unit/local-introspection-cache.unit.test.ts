import { LocalIntrospectionCache } from '../../src/storage/local-introspection-cache';

describe('LocalIntrospectionCache', () => {
  it('expires entries at their TTL and keeps resource servers apart', () => {
    const cache = new LocalIntrospectionCache();
    cache.set('h', 'rs1', { active: true, scope: 'a' }, 1000, 0);
    expect(cache.get('h', 'rs1', 999)).toEqual({ active: true, scope: 'a' });
    expect(cache.get('h', 'rs2', 999)).toBeUndefined();
    expect(cache.get('h', 'rs1', 1000)).toBeUndefined();
  });
  it('drops every resource server view of a revoked hash and refuses late writes (tombstone)', () => {
    const cache = new LocalIntrospectionCache(100, 5000);
    cache.set('h', 'rs1', { active: true }, 1000, 0);
    cache.set('h', 'rs2', { active: true }, 1000, 0);
    cache.invalidate(['h'], 10);
    expect(cache.get('h', 'rs1', 11)).toBeUndefined();
    expect(cache.get('h', 'rs2', 11)).toBeUndefined();
    cache.set('h', 'rs1', { active: true }, 1000, 20); // a lookup that read Postgres before the revocation
    expect(cache.get('h', 'rs1', 21)).toBeUndefined();
    cache.set('h', 'rs1', { active: false }, 1000, 6000);
    expect(cache.get('h', 'rs1', 6001)).toEqual({ active: false });
  });
  it('drops expired records as new tokens arrive, so memory follows the live tokens only', () => {
    const cache = new LocalIntrospectionCache(100_000, 5000);
    // 10,000 tokens, one new every ms, each cached for 1 s for two resource servers: ~1,000 live at a time.
    for (let t = 0; t < 10_000; t++) {
      cache.set(`h${t}`, 'rs1', { active: true }, 1000, t);
      cache.set(`h${t}`, 'rs2', { active: true }, 1000, t);
    }
    expect(cache.size.entries).toBeLessThanOrEqual(1100); // the sweep is amortised: a few expired ones wait their turn
    expect(cache.size.entries).toBeGreaterThanOrEqual(1000);
    // The live ones are still served, whatever their place in the sweep.
    expect(cache.get('h9999', 'rs2', 9999)).toEqual({ active: true });
    expect(cache.get('h9001', 'rs1', 9999)).toEqual({ active: true });
    expect(cache.get('h8999', 'rs1', 9999)).toBeUndefined();
  });
  it('keeps a long-lived record while short-lived ones around it expire', () => {
    const cache = new LocalIntrospectionCache(100_000, 5000);
    cache.set('long', 'rs1', { active: true, scope: 'kept' }, 60_000, 0);
    for (let t = 1; t < 5000; t++) cache.set(`h${t}`, 'rs1', { active: true }, 100, t);
    expect(cache.get('long', 'rs1', 5000)).toEqual({ active: true, scope: 'kept' });
    expect(cache.size.entries).toBeLessThanOrEqual(150);
  });
  it('forgets tombstones once they expire', () => {
    const cache = new LocalIntrospectionCache(100_000, 5000);
    for (let t = 0; t < 20_000; t++) cache.invalidate([`h${t}`], t);
    expect(cache.size.tombstones).toBe(5000);
    cache.invalidate(['h19999'], 20_000); // a second revocation renews the tombstone at the back
    cache.set('h19999', 'rs1', { active: true }, 1000, 24_999);
    expect(cache.get('h19999', 'rs1', 24_999)).toBeUndefined();
    cache.invalidate([], 30_000);
    expect(cache.size.tombstones).toBe(0);
  });
});
