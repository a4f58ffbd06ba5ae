import { arcDistanceMeters, parseDistanceMeters, planeDistanceMeters } from '../../src/mapping/geo-distance';
import {
  geohashOfKey,
  geohashPoint,
  geoPointFromKey,
  geoPointKey,
  quantize,
} from '../../src/mapping/geo-point';

/**
 * Lucene's encoding and SloppyMath as ES computes them: the expected numbers were printed by the
 * same arithmetic in Java (StrictMath tables, GeoEncodingUtils), so sort values and agg numbers
 * equal Elasticsearch's to the last bit.
 */
describe('geo_point encoding and distances', () => {
  it('quantises each coordinate to its 32-bit Lucene step', () => {
    expect(quantize({ lat: 51.5, lon: -0.12 })).toEqual({
      lat: 51.49999998975545,
      lon: -0.12000001966953278,
    });
    expect(quantize({ lat: 35.68, lon: 139.69 })).toEqual({
      lat: 35.67999996710569,
      lon: 139.68999995850027,
    });
    // 90 and 180 encode as the step below them.
    expect(quantize({ lat: 90, lon: 180 }).lat).toBeLessThan(90);
    expect(quantize({ lat: 90, lon: 180 }).lon).toBeLessThan(180);
  });

  it('keeps a point as a key that decodes to the quantised point and sorts by latitude', () => {
    const key = geoPointKey({ lat: 51.5, lon: -0.12 });
    expect(key).toMatch(/^[0-9a-f]{16}$/);
    expect(geoPointFromKey(key)).toEqual(quantize({ lat: 51.5, lon: -0.12 }));
    expect(geoPointKey({ lat: -10, lon: 0 }) < geoPointKey({ lat: 10, lon: 0 })).toBe(true);
    expect(geoPointKey({ lat: 0, lon: -10 }) < geoPointKey({ lat: 0, lon: 10 })).toBe(true);
  });

  it('computes the haversine distance of SloppyMath, bit for bit', () => {
    const london = quantize({ lat: 51.5, lon: -0.12 });
    const tokyo = quantize({ lat: 35.68, lon: 139.69 });
    expect(arcDistanceMeters(48.8566, 2.3522, london.lat, london.lon)).toBe(342572.67924856767);
    expect(arcDistanceMeters(48.8566, 2.3522, tokyo.lat, tokyo.lon)).toBe(9712961.280657593);
    expect(planeDistanceMeters(0, 0, 0, 1)).toBeCloseTo(111195.08, 1);
  });

  it('reads distances with ES unit suffixes', () => {
    expect(parseDistanceMeters('12km')).toBe(12000);
    expect(parseDistanceMeters('1mi')).toBe(1609.344);
    expect(parseDistanceMeters('2NM')).toBe(3704);
    expect(parseDistanceMeters('5mm')).toBe(0.005);
    expect(parseDistanceMeters(7)).toBe(7);
    expect(() => parseDistanceMeters('3 parsecs')).toThrow('For input string: "3 parsecs"');
  });

  it('encodes and decodes geohashes as cells', () => {
    expect(geohashOfKey(geoPointKey({ lat: 48.8566, lon: 2.3522 }), 6)).toBe('u09tvw');
    expect(geohashOfKey(geoPointKey({ lat: 0, lon: 0 }), 1)).toBe('s');
    expect(geohashPoint('s')).toEqual({ lat: 0, lon: 0 });
  });
});
