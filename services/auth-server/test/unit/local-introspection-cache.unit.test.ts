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
});
