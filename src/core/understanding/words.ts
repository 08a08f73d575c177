/**
 * Word lists of conversational English that need understanding reads (need.ts): words that carry
 * talk rather than the thing wanted, and the words that name who a thing is for. Generic English,
 * written for Aisle; nothing here comes from a catalog or an evaluation set.
 */

const words = (text: string): ReadonlySet<string> => new Set(text.trim().split(/\s+/));

/**
 * Words of talk, not of products: pronouns, auxiliaries, common verbs of wanting, saying and
 * doing, time and frequency, intensifiers, discourse markers and question words. A conversation's
 * product words are what remains (plus the catalog's judgement of each, need.ts).
 */
export const TALK_WORDS = words(`
  a an the this that these those there here it its it's itself i i'm i've i'd i'll me my mine myself
  we we're we've we'd we'll us our ours ourselves you you're you've your yours yourself he he's him his
  himself she she's her hers herself they they're they've them their theirs themselves someone somebody
  anyone anybody everyone everybody nobody people person one ones thing things stuff something anything
  everything nothing whatever whichever whoever
  am is are was were be been being do does did doing done have has had having can could will would
  shall should may might must ought need needs needed want wants wanted wanting wish wishes wished
  like likes liked love loves loved hate hates hated prefer prefers get gets got getting gotten give
  gives gave given go goes going went gone come comes coming came make makes making made take takes
  took taking taken put puts putting keep keeps kept keeping let lets say says said saying tell tells
  told telling ask asks asked think thinks thought know knows knew known see sees saw seen look looks
  looked looking find finds found finding try tries tried trying use uses used using help helps helped
  seem seems seemed feel feels felt mean means meant guess suppose hope hoped hoping
  buy buys bought buying purchase order ordered shop shopping recommend recommends recommended
  recommendation recommendations suggest suggestion suggestions idea ideas option options afford
  start starts started starting stop stops stopped begin began finish finished plan plans planning
  planned decide decided realise realised realize realized notice noticed remember forgot forget
  wonder wondering heard hear read reading getting gonna wanna gotta lemme
  what what's which who whom whose when where why how how's
  and or but if so because since though although while until unless than then also too either neither
  nor not no yes yeah yep nope ok okay oh ah um hmm well maybe perhaps probably actually really very
  quite pretty rather just only even still already yet again ever never always often sometimes usually
  soon later now today tonight tomorrow yesterday weekend week weeks month months year years day days
  morning evening afternoon time times moment minute minutes hour hours lately recently
  currently finally first last next ago
  about above after against along among around as at before behind below beneath beside between beyond
  by down during except for from in inside into near of off on onto out outside over past per through
  throughout to toward towards under underneath up upon with within without via
  all any both each every few many more most much other others own same several some such enough lot
  lots little less least
  please thanks thank hi hello hey sorry cool great nice awesome fine sure right good better best bad
  worse worst new old kind sort type way ways lot able unable
  anymore anyway somewhere anywhere everywhere nowhere else instead almost
  proper decent real actual perfect ideal famous popular favorite favourite usual normal regular
  whole entire certain particular special main
  would've could've should've don't doesn't didn't can't couldn't won't wouldn't isn't aren't wasn't
  weren't haven't hasn't hadn't shouldn't
`);

/**
 * Who a thing is for, and the catalog modifier each usually means: "for my daughter" is about
 * girls' things, not about daughters. The person word itself never names the product.
 */
export const RECIPIENTS: ReadonlyMap<string, string | null> = new Map([
  ...[...words('son sons grandson grandsons nephew nephews boy boys')].map((w) => [w, 'boys'] as const),
  ...[...words('daughter daughters granddaughter granddaughters niece nieces girl girls')].map((w) => [w, 'girls'] as const),
  ...[...words('wife girlfriend mom mum mother grandma grandmother aunt sister sisters lady ladies')].map((w) => [w, 'womens'] as const),
  ...[...words('husband boyfriend dad father grandpa grandfather uncle brother brothers guy guys')].map((w) => [w, 'mens'] as const),
  ...[...words('toddler toddlers')].map((w) => [w, 'toddler'] as const),
  ...[...words('baby babies newborn infant infants twins')].map((w) => [w, 'baby'] as const),
  ...[...words('kid kids child children')].map((w) => [w, 'kids'] as const),
  ...[
    ...words(
      'friend friends partner spouse family parents parent grandparents grandkids grandchildren teacher boss coworker coworkers colleague colleagues roommate roommates neighbor neighbour neighbors neighbours guest guests cousin cousins',
    ),
  ].map((w) => [w, null] as const),
]);
