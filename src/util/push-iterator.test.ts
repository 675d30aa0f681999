import { describe, expect, it } from 'vitest';
import { pushIterator } from './push-iterator.js';

describe('pushIterator', () => {
  it('keeps only the newest unread value by default: a live query skips to the latest state', async () => {
    const states = pushIterator<number>(() => undefined);
    states.push(1);
    states.push(2);
    expect(await states.next()).toEqual({ done: false, value: 2 });
  });

  it('with a queue, keeps every value in order', async () => {
    const events = pushIterator<number>(() => undefined, { max: 10, overflow: () => -1 });
    for (const value of [1, 2, 3]) events.push(value);
    expect([await events.next(), await events.next(), await events.next()].map((result) => result.value)).toEqual([1, 2, 3]);
  });

  it('ends a queue that falls max behind after the overflow value, and calls onEnd once', async () => {
    let ended = 0;
    const events = pushIterator<number>(() => (ended += 1), { max: 2, overflow: () => -1 });
    for (const value of [1, 2, 3, 4]) events.push(value);
    const values: number[] = [];
    for await (const value of events) values.push(value);
    expect(values).toEqual([1, 2, -1]);
    expect(ended).toBe(1);
  });

  it('end() ends it after what is unread and its last value', async () => {
    const events = pushIterator<number>(() => undefined, { max: 10, overflow: () => -1 });
    events.push(1);
    events.end(9);
    events.push(2);
    const values: number[] = [];
    for await (const value of events) values.push(value);
    expect(values).toEqual([1, 9]);
  });

  it('readBelow waits until the reader has taken enough', async () => {
    const events = pushIterator<number>(() => undefined, { max: 10, overflow: () => -1 });
    for (const value of [1, 2, 3]) events.push(value);
    let drained = false;
    const waiting = events.readBelow(2).then(() => (drained = true));
    await events.next();
    await Promise.resolve();
    expect(drained).toBe(false);
    await events.next();
    await waiting;
    expect(drained).toBe(true);
  });

  it('return() ends a waiting next() at once', async () => {
    const events = pushIterator<number>(() => undefined, { max: 10, overflow: () => -1 });
    const pending = events.next();
    await events.return();
    expect(await pending).toEqual({ done: true, value: undefined });
  });
});
