/**
 * Topics beside which Aisle shows no products, whatever else the conversation says: a person
 * grieving, in danger of harming themselves, in a medical emergency, talking politics, a child at
 * risk, or violence against someone. An ad there costs more than any sale is worth, so these are
 * a hard stop (metadata.no_fill_reason "sensitive_topic"), not a low score. The list is
 * docs/search.md, "Sensitive topics"; the patterns are deliberately broad.
 */

export const SENSITIVE_TOPICS = ['grief', 'self_harm', 'medical_emergency', 'politics', 'child_at_risk', 'violence'] as const;
export type SensitiveTopic = (typeof SENSITIVE_TOPICS)[number];

const pattern = (parts: readonly string[]) => new RegExp(`\\b(?:${parts.join('|')})\\b`, 'i');

/** People and pets whose death a person may be talking about. */
const KIN_WORDS =
  '(?:mom|mum|mother|dad|father|husband|wife|son|daughter|baby|child|kid|brother|sister|grandma|grandmother|grandpa|grandfather|grandparents?|aunt|uncle|cousin|niece|nephew|friend|best friend|partner|boyfriend|girlfriend|fianc[eé]e?|dog|cat|pet|puppy|kitten)';
const KIN = `(?:my|our|his|her|their) ${KIN_WORDS}`;

const PATTERNS: readonly [SensitiveTopic, RegExp][] = [
  [
    'self_harm',
    pattern([
      'suicid\\w*',
      'kill(?:ing)? (?:my|him|her)sel(?:f|ves)',
      'end(?:ing)? (?:my|it all|my own) ?(?:life)?',
      "don'?t want to (?:live|be alive|be here|wake up)",
      'want(?:ed)? to die',
      'better off (?:dead|without me)',
      'self[- ]?harm\\w*',
      'hurt(?:ing)? my ?self',
      'cut(?:ting)? (?:my ?self|my (?:arms?|wrists?|legs?|thighs?))',
      'overdos\\w*',
      'no reason to live',
      'anorexi\\w*',
      'bulimi\\w*',
      'purg(?:e|ing) after',
      'starv(?:e|ing) my ?self',
    ]),
  ],
  [
    'medical_emergency',
    pattern([
      'chest pains?',
      "can'?t breathe",
      'cannot breathe',
      'trouble breathing',
      'not breathing',
      'stopped breathing',
      'heart attack',
      '(?:having|had|signs of|symptoms of) a stroke',
      'seizures?',
      'unconscious',
      'passed out',
      'poison control',
      '(?:was|been|is|got) poisoned',
      'swallow(?:ed)? (?:a|an|some|the) (?:battery|button|magnet|pills?|bleach|detergent|pod|coin)',
      'allergic reaction',
      'anaphyla\\w*',
      'epi ?pen',
      "(?:won'?t|will not|can'?t) stop bleeding",
      'bleeding (?:a lot|heavily|badly|everywhere)',
      'call(?:ed)? (?:911|999|112|an ambulance)',
      'emergency room',
      'er right now',
      'face (?:is )?droop\\w*',
      'slurr\\w* (?:speech|words)',
      'took too many',
    ]),
  ],
  [
    'grief',
    pattern([
      `${KIN} (?:just |recently |suddenly |has |had |is |was )?(?:died|passed|passed away|is dying|was killed|killed himself|killed herself)`,
      'passed away',
      'death of (?:my|our|his|her|a)',
      'funerals?',
      'memorial service',
      'grie(?:f|ve|ving|ved)',
      'mourn\\w*',
      'condolences?',
      `lost my ${KIN_WORDS}`,
      'put (?:him|her|(?:my|our|the) (?:dog|cat|pet|puppy|kitten)) down',
      'put to sleep',
      'miscarri\\w*',
      'stillb(?:irth|orn)',
      'obituar\\w*',
      'eulog\\w*',
    ]),
  ],
  [
    'child_at_risk',
    pattern([
      'child abuse',
      '(?:abus|molest|touch|groom|hit|beat|hurt)(?:e|ed|es|ing|s)? (?:my|a|the|his|her|their) (?:child|children|kids?|sons?|daughters?|niece|nephew|students?|toddler|baby)',
      '(?:child|kid|son|daughter|toddler|baby) (?:is|was) (?:being )?(?:abused|molested|groomed|beaten|hit|neglected|missing)',
      'missing (?:child|kid|son|daughter|toddler)',
      '(?:child|kid|son|daughter)(?: is| has)? (?:run away|ran away|gone missing|been missing)',
      'neglect(?:ed|ing)? (?:my|a|the|his|her)? ?(?:child|kid|kids|children|baby)',
      'left (?:alone|home alone) (?:for|all)',
      'cps',
      'child protective',
      'predator',
      'sexting',
      'bruises on (?:my|his|her|the) (?:child|kid|son|daughter)',
    ]),
  ],
  [
    'violence',
    pattern([
      'domestic (?:violence|abuse)',
      '(?:he|she|they|my (?:husband|wife|partner|boyfriend|girlfriend|ex)) (?:hits?|beats?|chokes?|choked|hit|beat|hurts?|hurt|threaten(?:s|ed)?) me',
      'threaten(?:ed|ing|s)? (?:to kill|me|my)',
      'stalk(?:ed|ing|er)',
      'assault(?:ed)?',
      'raped?',
      'sexual(?:ly)? (?:assault|abuse|harass)\\w*',
      'restraining order',
      'bring a gun',
      'shoot(?:ing)? (?:me|up)',
      'kill (?:me|him|her|you)',
      'going to kill',
      'afraid (?:for my life|he will|she will)',
    ]),
  ],
  [
    'politics',
    pattern([
      'elections?',
      'vot(?:e|es|ed|ing|er|ers)',
      'ballots?',
      'polling (?:place|station)',
      'democrats?',
      'republicans?',
      'gop',
      'liberals',
      'conservatives',
      'left[- ]wing',
      'right[- ]wing',
      'congress(?:man|woman)?',
      'senat(?:e|or|ors)',
      'parliament',
      'prime minister',
      "president(?:ial)?(?!s?'? day)",
      'candidates?',
      'campaign(?:s|ing)? (?:for|rally|sign)',
      'political',
      'politics',
      'politicians?',
      'impeach\\w*',
      'abortion',
      'gun control',
      'immigration (?:policy|reform|debate)',
      'protests?',
      'rall(?:y|ies) (?:for|against)',
      'partisan',
      'electoral college',
    ]),
  ],
];

/** The first sensitive topic any of the texts touches, or null. */
export function sensitiveTopic(texts: readonly string[]): SensitiveTopic | null {
  for (const [topic, re] of PATTERNS) if (texts.some((t) => re.test(t))) return topic;
  return null;
}

/**
 * How a person might put each sensitive topic, for the semantic check beside the patterns: a turn
 * whose embedding is close to one of these is treated as that topic, so wordings no pattern
 * foresaw are caught too (docs/search.md, "Sensitive topics"). Written for Aisle.
 */
export const SENSITIVE_EXAMPLES: Readonly<Record<SensitiveTopic, readonly string[]>> = {
  grief: [
    'my mother died last night and I do not know what to do',
    'we lost our baby',
    'my best friend passed away suddenly',
    'how do I cope with the loss of my husband',
    'our dog died this morning and the kids are heartbroken',
    'I have to plan my father’s funeral',
    'what do I say to a coworker whose wife just died',
    'I keep calling my dead dad’s phone just to hear his voice',
    'it has been a year since my son died and it still hurts',
    'the vet said it is time to put our cat to sleep',
  ],
  self_harm: [
    'I want to kill myself',
    'I do not want to be alive anymore',
    'I have been cutting myself again',
    'I keep thinking about ending my life',
    'everyone would be better off without me',
    'I took a lot of pills on purpose',
    'I have not eaten in days because I hate my body',
    'I make myself throw up after every meal',
    'I wrote goodbye letters to my family',
    'how do I hide the scars on my arms',
  ],
  medical_emergency: [
    'I think I am having a heart attack, crushing pain in my chest and my left arm went numb',
    'my child swallowed a battery',
    'she is not breathing',
    'he hit his head and now he is confused and vomiting',
    'my friend took too many pills and will not wake up',
    'I think I am having a stroke, my face feels weird',
    'my throat is swelling after eating peanuts',
    'there is so much blood and it will not stop',
    'my toddler drank something from under the sink',
    'I mixed cleaning chemicals and now I cannot stop coughing',
  ],
  politics: [
    'who should I vote for in the election',
    'what do you think about the president',
    'give me the arguments for and against immigration',
    'are democrats or republicans right about taxes',
    'should abortion be legal',
    'what is your opinion on gun control',
    'is universal basic income a good idea',
    'explain the debate about the new law in parliament',
    'I am going to a protest this weekend',
    'which party is better for the economy',
  ],
  child_at_risk: [
    'my niece told me an adult touches her at night',
    'a child in my son’s class says his dad hits him',
    'the kid next door is always left alone and hungry',
    'I cannot find my child, he was at the park a minute ago',
    'a stranger online keeps asking my son for pictures',
    'my daughter comes home from school with bruises',
    'I think my neighbour is abusing his kids',
    'my teenager ran away from home last night',
  ],
  violence: [
    'my husband hit me again last night',
    'my ex keeps following me and showing up at my house',
    'a man threatened to kill me',
    'I was attacked on the way home',
    'someone broke into my house while I was asleep',
    'my partner will not let me leave and I am scared',
    'I was sexually assaulted',
    'I got mugged and they took my phone',
  ],
};
