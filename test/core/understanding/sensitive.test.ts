import { describe, expect, it } from 'vitest';
import { sensitiveTopic } from '../../../src/core/understanding/sensitive.js';

// The patterns of docs/search.md, "Sensitive topics": each catches its topic, not its word.
describe('sensitiveTopic', () => {
  const cases: [string, string | null][] = [
    ['My mother passed away last night', 'grief'],
    ['do I need a black suit for the funeral?', 'grief'],
    ['we had to put our dog down today', 'grief'],
    ['my dad died on Tuesday', 'grief'],
    ['I keep thinking about suicide', 'self_harm'],
    ["I don't want to be alive anymore", 'self_harm'],
    ['I started cutting myself again', 'self_harm'],
    ['my toddler swallowed a button battery', 'medical_emergency'],
    ['he is having a stroke I think', 'medical_emergency'],
    ['should I call 911, she has chest pain', 'medical_emergency'],
    ['who should I vote for?', 'politics'],
    ['explain the electoral college', 'politics'],
    ['I think the neighbour is abusing his kids', 'child_at_risk'],
    ['my son is missing, he was at the park', 'child_at_risk'],
    ['my husband hit me again', 'violence'],
    ['my ex keeps stalking me', 'violence'],
    // Near misses: the words, without the topic.
    ['my car battery died in the parking lot', null],
    ['what can I spray on the weeds to kill them', null],
    ["any deals for the Presidents' Day sale?", null],
    ['I need celery stalks for soup', null],
    ['my back hurts from sitting all day', null],
    ['these boots are killing my feet', null],
    ['which rat poison is safe around dogs', null],
  ];
  it.each(cases)('%s → %s', (text, topic) => {
    expect(sensitiveTopic([text])).toBe(topic);
  });

  it('reads every turn given', () => {
    expect(sensitiveTopic(['what should I wear?', 'My grandpa passed away.'])).toBe('grief');
  });
});
