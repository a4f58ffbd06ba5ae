import { minimumShouldMatch } from '../../src/query/minimum-should-match';

describe('minimum_should_match', () => {
  it.each<[number, string, number]>([
    [4, '3', 3],
    [4, '-1', 3],
    [4, '75%', 3],
    [3, '75%', 2],
    [4, '-25%', 3],
    [3, '-25%', 3],
    [5, '10', 5],
    [2, '2<-25% 9<3', 2],
    [5, '2<-25% 9<3', 4],
    [10, '2<-25% 9<3', 3],
    [3, '3<90%', 3],
    [5, '3<90%', 4],
    [4, '-100', 0],
  ])('with %i optional clauses, %s requires %i', (count, spec, expected) => {
    expect(minimumShouldMatch(count, spec)).toBe(expected);
  });
});
