import type { Random } from './fake-values.js';

/**
 * Texts for demo data that read like the real thing: product names with
 * prices that suit them, post titles and bodies, profile bios. Products are
 * a function of their row number alone, so an order line can quote the
 * price of the product it points at without reading it back.
 */

const MATERIALS = ['Walnut', 'Oak', 'Linen', 'Ceramic', 'Copper', 'Wool', 'Leather', 'Bamboo', 'Steel', 'Cotton', 'Glass', 'Cork'];
/** Each kind of thing with its price range in cents, so a mug never costs more than a desk. */
const THINGS: readonly (readonly [string, number, number])[] = [
  ['Desk Lamp', 3900, 12900],
  ['Coffee Mug', 900, 2900],
  ['Notebook', 700, 2400],
  ['Backpack', 4900, 17900],
  ['Standing Desk', 29900, 89900],
  ['Headphone Stand', 1900, 5900],
  ['Throw Blanket', 3900, 14900],
  ['Water Bottle', 1500, 3900],
  ['Desk Organizer', 1900, 6900],
  ['Keyboard Wrist Rest', 1500, 4500],
  ['Plant Pot', 1200, 4900],
  ['Wall Clock', 2900, 9900],
  ['Cutting Board', 1900, 7900],
  ['Laptop Sleeve', 2500, 6900],
  ['Reading Chair', 19900, 59900],
  ['Pen Set', 900, 3900],
];
const PRODUCT_NOTES = [
  'Made to last and easy to look after.',
  'Ships in recycled packaging within two working days.',
  'Designed in Lisbon, made by a family workshop.',
  'A customer favourite since our first season.',
  'Comes with a two-year guarantee.',
  'Each one is finished by hand, so no two are quite alike.',
];

export interface CatalogueItem {
  readonly name: string;
  readonly priceCents: number;
  readonly description: string;
}

/** The product of row `index` (1-based): always the same name, price and description for the same row. */
export function catalogueItem(index: number): CatalogueItem {
  const thing = THINGS[(index - 1) % THINGS.length] as readonly [string, number, number];
  const material = MATERIALS[Math.floor((index - 1) / THINGS.length) % MATERIALS.length] as string;
  const [noun, low, high] = thing;
  // A spread of prices inside the range, ending in 9 (or 99) as shop prices do.
  const step = ((index * 7919) % 97) / 96;
  const priceCents = Math.round((low + (high - low) * step) / 100) * 100 - 1 + (index % 3 === 0 ? -50 : 0);
  const note = PRODUCT_NOTES[index % PRODUCT_NOTES.length] as string;
  return { name: `${material} ${noun}`, priceCents, description: `${material} ${noun.toLowerCase()}. ${note}` };
}

const TOPICS = ['cursor pagination', 'SQLite in production', 'HTTP caching', 'GraphQL subscriptions', 'our first outage', 'database migrations', 'rate limiting', 'image resizing', 'feature flags', 'code review', 'remote work', 'on-call', 'writing docs', 'TypeScript generics', 'PostgreSQL indexes', 'weekend projects'];
const TITLE_SHAPES: readonly ((topic: string) => string)[] = [
  (topic) => `What I learned about ${topic}`,
  (topic) => `Notes on ${topic}`,
  (topic) => `A week with ${topic}`,
  (topic) => `Why we changed our mind about ${topic}`,
  (topic) => `${capitalise(topic)}: a beginner's guide`,
  (topic) => `Three mistakes we made with ${topic}`,
  (topic) => `${capitalise(topic)}, revisited`,
  (topic) => `How we think about ${topic}`,
];
const OPENINGS = [
  'This started as a note to myself, and a few people asked me to share it.',
  'We spent most of last month on this, so here is what we found.',
  'I get asked about this often enough that it deserves a post.',
  'A short one today, written on the train.',
  'Last week a small change turned into a long investigation.',
];
const MIDDLES = [
  'The first attempt was simple and worked well until traffic doubled.',
  'Measuring before changing anything saved us from fixing the wrong thing.',
  'The documentation covers the basics, but the edge cases are where the time goes.',
  'Most of the gain came from removing work rather than doing it faster.',
  'We wrote the tests first this time, and it showed.',
  'Two of us disagreed on the approach, and both turned out to be partly right.',
  'The numbers surprised us: the slow part was not where we expected.',
  'It is easy to get wrong in ways that only show up under load.',
];
const ENDINGS = [
  'If you have tried something similar, I would love to hear how it went.',
  'More on this next month, once it has run in production for a while.',
  'Thanks to everyone who reviewed the draft.',
  'The code is small enough to read in an afternoon.',
  'In short: keep it simple, and measure.',
];

/** A title a post might have, such as "Notes on cursor pagination". */
export function postTitle(random: Random): string {
  return random.pick(TITLE_SHAPES)(random.pick(TOPICS));
}

/** A few short paragraphs: an opening, a middle and an ending. */
export function postBody(random: Random): string {
  const middle = [random.pick(MIDDLES), random.pick(MIDDLES)].filter((line, at, all) => all.indexOf(line) === at);
  return [random.pick(OPENINGS), middle.join(' '), random.pick(ENDINGS)].join('\n\n');
}

const BIO_ROLES = ['Software engineer', 'Designer', 'Data scientist', 'Writer', 'Product manager', 'Student', 'Founder', 'Researcher'];
const BIO_LIKES = ['coffee', 'long walks', 'old maps', 'mechanical keyboards', 'jazz', 'climbing', 'bread baking', 'board games'];

/** A one- or two-sentence profile text, such as "Designer. Likes jazz and climbing." */
export function profileBio(random: Random): string {
  const likes = [random.pick(BIO_LIKES), random.pick(BIO_LIKES)].filter((like, at, all) => all.indexOf(like) === at);
  return `${random.pick(BIO_ROLES)} writing about ${random.pick(TOPICS)}. Likes ${likes.join(' and ')}.`;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
