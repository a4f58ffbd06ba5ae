import { EsError } from '@acme/common';
import { decodeLatitude, decodeLongitude, geohashCell, GeoPointError } from '../../mapping/geo-point';
import { javaDoubleToString } from '../../mapping/raw-number';
import type { Query } from '../query-ast';
import {
  booleanOf,
  isObject,
  numberOf,
  parsingError,
  queryPoint,
  validationMethod,
  type Json,
} from './parse-geo-common';

type Corner = 'top_left' | 'bottom_right' | 'top_right' | 'bottom_left';
interface Box {
  top: number;
  left: number;
  bottom: number;
  right: number;
}

/**
 * `geo_bounding_box` (ES "Geo-bounding box query", GeoBoundingBoxQueryBuilder.fromXContent and
 * GeoBoundingBox.parseBoundingBox): corners `top_left`/`bottom_right` or `top_right`/`bottom_left` in
 * any point form (a geohash stands for the cell's matching corner), `top`/`left`/`bottom`/`right`,
 * `wkt: "BBOX (left, right, top, bottom)"`, or a `geohash` cell; `validation_method`,
 * `ignore_unmapped`, `boost`, `_name`. A left beyond the right crosses the dateline.
 */
export function parseGeoBoundingBox(value: unknown, parent: Json, name: string): Query {
  if (!isObject(value))
    throw parsingError(`[${name}] query malformed, no start_object after query name`, parent, name);
  let field: string | undefined;
  let box: Box | undefined;
  let boost = 1;
  let validation: ReturnType<typeof validationMethod> = 'STRICT';
  let ignoreUnmapped = false;
  for (const [key, v] of Object.entries(value)) {
    if (isObject(v)) {
      try {
        box = parseBox(v);
      } catch (error) {
        if (error instanceof EsError)
          throw new EsError('parse_exception', `failed to parse [geo_bounding_box] query. [${error.reason}]`);
        throw error;
      }
      field = key;
      continue;
    }
    switch (key) {
      case '_name':
        break;
      case 'boost':
        boost = numberOf(v, name, key, value);
        break;
      case 'validation_method':
        validation = validationMethod(v);
        break;
      case 'ignore_unmapped':
        ignoreUnmapped = booleanOf(v, name, key, value);
        break;
      case 'type':
        // ES 7 deprecated `type` (memory|indexed); ES 8 still reads and ignores it.
        break;
      default:
        throw parsingError(`failed to parse [geo_bounding_box] query. unexpected field [${key}]`, value, key);
    }
  }
  if (!box || field === undefined)
    throw new EsError(
      'parse_exception',
      'failed to parse [geo_bounding_box] query. bounding box not provided',
    );
  if (validation === 'STRICT' && box.top < box.bottom) {
    throw new EsError(
      'illegal_argument_exception',
      `top is below bottom corner: ${javaDoubleToString(box.top)} vs. ${javaDoubleToString(box.bottom)}`,
    );
  }
  return { kind: 'geo_bounding_box', field, ...box, validation, ignoreUnmapped, boost };
}

const BOX_KEYS = new Set(['top', 'left', 'bottom', 'right']);

function parseBox(spec: Json): Box {
  const sides: Partial<Box> = {};
  let wkt: Box | undefined;
  let cell: Box | undefined;
  for (const [key, v] of Object.entries(spec)) {
    if (BOX_KEYS.has(key)) {
      sides[key as keyof Box] = numberOf(v, 'geo_bounding_box', key, spec);
    } else if (key === 'top_left' || key === 'bottom_right' || key === 'top_right' || key === 'bottom_left') {
      const point = cornerPoint(v, key);
      if (key.startsWith('top')) sides.top = point.lat;
      else sides.bottom = point.lat;
      if (key.endsWith('left')) sides.left = point.lon;
      else sides.right = point.lon;
    } else if (key === 'wkt') {
      wkt = parseWktEnvelope(String(v));
    } else if (key === 'geohash') {
      if (typeof v !== 'string') throw new EsError('parse_exception', '[geohash] must be a string');
      cell = geohashBox(v);
    } else if (key === 'geotile') {
      if (typeof v !== 'string') throw new EsError('parse_exception', '[geotile] must be a string');
      cell = geotileBox(v);
    } else {
      throw new EsError('parse_exception', `failed to parse bounding box. unexpected field [${key}]`);
    }
  }
  const given = wkt ?? cell;
  if (given) {
    if (Object.keys(sides).length > 0)
      throw new EsError(
        'parse_exception',
        'failed to parse bounding box. Conflicting definition found using well-known text and explicit corners.',
      );
    return given;
  }
  const { top, left, bottom, right } = sides;
  if (top === undefined || left === undefined || bottom === undefined || right === undefined)
    throw new EsError('parse_exception', 'failed to parse bounding box. Missing corner definitions.');
  return { top, left, bottom, right };
}

/** A corner; a geohash string stands for that corner of its cell (GeoUtils.EffectivePoint). */
function cornerPoint(value: unknown, corner: Corner): { lat: number; lon: number } {
  if (typeof value === 'string' && !value.includes(',') && !value.toLowerCase().includes('point')) {
    const box = geohashBox(value);
    return {
      lat: corner.startsWith('top') ? box.top : box.bottom,
      lon: corner.endsWith('left') ? box.left : box.right,
    };
  }
  return queryPoint(value);
}

/** The cell of a geohash (Geohash.toBoundingBox): its corner and one cell up and right, at most 90/180. */
function geohashBox(hash: string): Box {
  let cell: ReturnType<typeof geohashCell>;
  try {
    cell = geohashCell(hash);
  } catch (error) {
    if (error instanceof GeoPointError) throw new EsError('parse_exception', error.message);
    throw error;
  }
  const latStep = 2 ** (32 - cell.latBits);
  const lonStep = 2 ** (32 - cell.lonBits);
  const topEncoded = cell.lat + latStep;
  const rightEncoded = cell.lon + lonStep;
  return {
    bottom: decodeLatitude(cell.lat),
    left: decodeLongitude(cell.lon),
    top: topEncoded > 0x7fffffff ? 90 : decodeLatitude(topEncoded),
    right: rightEncoded > 0x7fffffff ? 180 : decodeLongitude(rightEncoded),
  };
}

/**
 * A map tile "zoom/x/y" as its box (GeoTileUtils.toBoundingBox: Web Mercator rows; ES takes atan and
 * sinh from its ESSloppyMath, here Math's, which can differ in the last bits at a tile's edge).
 */
function geotileBox(key: string): Box {
  const parts = key.split('/');
  if (parts.length !== 3 || parts.some((p) => !/^\d{1,10}$/.test(p)))
    throw new EsError(
      'illegal_argument_exception',
      `Invalid geotile_grid hash string of ${key}. Must be three integers in a form "zoom/x/y".`,
    );
  const [zoom, x, y] = parts.map(Number) as [number, number, number];
  if (zoom > 29)
    throw new EsError(
      'illegal_argument_exception',
      `Invalid geotile_grid precision of ${zoom}. Must be between 0 and 29.`,
    );
  const tiles = 2 ** zoom;
  if (x >= tiles || y >= tiles)
    throw new EsError('illegal_argument_exception', `Zoom/X/Y combination is not valid: ${zoom}/${x}/${y}`);
  const minN = Math.PI - (2.0 * Math.PI * (y + 1)) / tiles;
  const maxN = Math.PI - (2.0 * Math.PI * y) / tiles;
  const degrees = (radians: number): number => radians * (180 / Math.PI);
  return {
    bottom: degrees(Math.atan(Math.sinh(minN))),
    left: (x / tiles) * 360.0 - 180,
    top: degrees(Math.atan(Math.sinh(maxN))),
    right: ((x + 1) / tiles) * 360.0 - 180,
  };
}

const NUMBER = String.raw`\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)\s*`;
const BBOX = new RegExp(String.raw`^\s*bbox\s*\(${NUMBER},${NUMBER},${NUMBER},${NUMBER}\)\s*$`, 'i');

/** WKT `BBOX (minLon, maxLon, maxLat, minLat)` (ES's envelope order: left, right, top, bottom). */
function parseWktEnvelope(text: string): Box {
  const match = text.length <= 300 ? BBOX.exec(text) : null;
  if (!match) {
    const type = /^\s*([a-z]+)/i.exec(text)?.[1];
    if (type && type.toUpperCase() !== 'BBOX')
      throw new EsError(
        'parse_exception',
        `failed to parse WKT bounding box. [${type.toUpperCase()}] found. expected [BBOX]`,
      );
    throw new EsError('parse_exception', 'failed to parse WKT bounding box');
  }
  const [left, right, top, bottom] = match.slice(1, 5).map(Number) as [number, number, number, number];
  return { top, left, bottom, right };
}
