import { describe, expect, it } from 'vitest';
import { pluralize, splitWords, toCamelCase, toKebabCase, toPascalCase, toSnakeCase } from './naming.js';

describe('pluralize', () => {
  it.each([
    ['User', 'Users'],
    ['OrderItem', 'OrderItems'],
    ['Category', 'Categories'],
    ['Day', 'Days'],
    ['Box', 'Boxes'],
    ['Address', 'Addresses'],
    ['Status', 'Statuses'],
    ['Match', 'Matches'],
    ['Wish', 'Wishes'],
    ['Analysis', 'Analyses'],
    ['Person', 'People'],
    ['SalesPerson', 'SalesPeople'],
    ['person', 'people'],
    ['Child', 'Children'],
    ['Human', 'Humans'],
    ['Photo', 'Photos'],
  ])('%s → %s', (singular, plural) => {
    expect(pluralize(singular)).toBe(plural);
  });
});

describe('case conversion', () => {
  it('splits camel, Pascal, snake, kebab and acronyms into words', () => {
    expect(splitWords('OrderItem')).toEqual(['order', 'item']);
    expect(splitWords('order_item')).toEqual(['order', 'item']);
    expect(splitWords('order-item')).toEqual(['order', 'item']);
    expect(splitWords('HTMLPage')).toEqual(['html', 'page']);
    expect(splitWords('userID')).toEqual(['user', 'id']);
    expect(splitWords('address2')).toEqual(['address2']);
  });

  it('names a type, its collection, path and table', () => {
    const plural = toCamelCase(pluralize('OrderItem'));
    expect(plural).toBe('orderItems');
    expect(toKebabCase(plural)).toBe('order-items');
    expect(toSnakeCase(plural)).toBe('order_items');
  });

  it('names columns', () => {
    expect(toSnakeCase('createdAt')).toBe('created_at');
    expect(`${toSnakeCase('author')}_id`).toBe('author_id');
    expect(toSnakeCase('profilePicture')).toBe('profile_picture');
  });

  it('converts back to camel and Pascal case', () => {
    expect(toCamelCase('order_items')).toBe('orderItems');
    expect(toCamelCase('order-items')).toBe('orderItems');
    expect(toCamelCase('OrderItem')).toBe('orderItem');
    expect(toPascalCase('order_item')).toBe('OrderItem');
  });
});
