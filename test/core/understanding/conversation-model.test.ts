import { describe, expect, it } from 'vitest';
import { DEFAULT_CONVERSATION_MODEL, type NEED_FEATURES, needProbability, parseConversationModel } from '../../../src/core/understanding/conversation-model.js';

const signals = (over: Partial<Record<(typeof NEED_FEATURES)[number], number>>) => ({
  bestProbability: 0.5,
  topProbability: 0.5,
  bestCosine: 0.5,
  chatter: 0.5,
  shoppingTalk: 0.5,
  mass: 1,
  wanted: 0,
  shopping: 0,
  question: 0,
  ...over,
});

describe('the shopping-need decision', () => {
  it('rises with the catalog’s answer and the words of wanting, and falls with the likeness to chat and fact questions', () => {
    const p = (over: Parameters<typeof signals>[0]) => needProbability(DEFAULT_CONVERSATION_MODEL, signals(over));
    expect(p({ bestProbability: 0.9, bestCosine: 0.7 })).toBeGreaterThan(p({}));
    expect(p({ wanted: 1, shopping: 2 })).toBeGreaterThan(p({}));
    expect(p({ chatter: 0.9 })).toBeLessThan(p({}));
    expect(p({ question: 1 })).toBeLessThan(p({}));
    expect(p({ bestProbability: 0.95, topProbability: 0.9, bestCosine: 0.7, chatter: 0.3, wanted: 1 })).toBeGreaterThan(0.9);
    expect(p({ bestProbability: 0.1, topProbability: 0.1, bestCosine: 0.3, chatter: 0.9, question: 1 })).toBeLessThan(0.05);
  });

  it('reads a stored model back, and refuses one that lacks a signal', () => {
    expect(parseConversationModel(JSON.parse(JSON.stringify(DEFAULT_CONVERSATION_MODEL)))).toEqual(DEFAULT_CONVERSATION_MODEL);
    const { chatter: _, ...partial } = DEFAULT_CONVERSATION_MODEL.need.weights;
    expect(parseConversationModel({ need: { bias: 1, weights: partial } })).toBeNull();
    expect(parseConversationModel({ need: { bias: 'x', weights: DEFAULT_CONVERSATION_MODEL.need.weights } })).toBeNull();
    expect(parseConversationModel(undefined)).toBeNull();
  });
});
