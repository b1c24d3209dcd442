/**
 * The fuzz suite's own promises (test/fuzz/): a seed gives the same requests every time, a short
 * run still reaches every route, and the checks tell a JSON:API document from anything else.
 */
import { describe, expect, it } from 'vitest';
import { routes } from '#shared/routes.ts';
import { jsonApiProblem } from '../fuzz/checks.ts';
import { plansOf } from '../fuzz/plan.ts';

/** Plans as text, the placeholders and recipes (class instances) named with their fields. */
const text = (value: unknown) =>
  JSON.stringify(value, (_key, item) =>
    item &&
    typeof item === 'object' &&
    !Array.isArray(item) &&
    Object.getPrototypeOf(item) !== Object.prototype &&
    Object.getPrototypeOf(item) !== null
      ? { [item.constructor.name]: { ...item } }
      : item,
  );

describe('fuzz plans', () => {
  it('are the same for the same seed, and a shorter run is the start of a longer one', () => {
    const long = plansOf(7, 1_500);
    expect(text(plansOf(7, 1_500))).toBe(text(long));
    expect(text(plansOf(7, 600))).toBe(text(long.slice(0, 600)));
    expect(text(plansOf(8, 1_500))).not.toBe(text(long));
  });

  it('reach every route of the route table first, then mix valid and mutated requests', () => {
    const plans = plansOf(1, 1_000);
    expect(plans.slice(0, routes.length).map((plan) => plan.operation)).toEqual(routes.map((route) => route.operation));
    const mutated = plans.filter((plan) => plan.mutations.length > 0).length;
    expect(mutated).toBeGreaterThan(400);
    expect(mutated).toBeLessThan(800);
  });
});

describe('the JSON:API check', () => {
  const type = 'application/vnd.api+json';
  it('accepts documents with data, errors or meta', () => {
    expect(jsonApiProblem(200, type, '{"data":{"type":"users","id":"1"}}')).toBeUndefined();
    expect(jsonApiProblem(200, type, '{"data":[],"links":{"self":"/x"}}')).toBeUndefined();
    expect(jsonApiProblem(404, `${type}; charset=utf-8`, '{"meta":{"id":"x"},"errors":[{"title":"Not found"}]}')).toBeUndefined();
  });

  it('refuses anything else', () => {
    expect(jsonApiProblem(431, null, '')).toMatch(/content type/);
    expect(jsonApiProblem(200, 'application/json', '{"data":null}')).toMatch(/content type/);
    expect(jsonApiProblem(200, type, 'not json')).toMatch(/not JSON/);
    expect(jsonApiProblem(200, type, '[]')).toMatch(/not an object/);
    expect(jsonApiProblem(200, type, '{"data":null,"errors":[{}]}')).toMatch(/both/);
    expect(jsonApiProblem(400, type, '{"data":null}')).toMatch(/without errors/);
    expect(jsonApiProblem(200, type, '{"data":{"id":1}}')).toMatch(/type and id/);
    expect(jsonApiProblem(200, type, '{"data":null,"extra":1}')).toMatch(/extra/);
  });
});
