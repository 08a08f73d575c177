/**
 * Who followed a signed click link. A click counts (is billable) only when a person's browser
 * followed it: crawlers, link-preview fetchers and HTTP libraries are redirected like anyone else
 * but recorded as non-billable, because affiliate programs claw back bot traffic.
 *
 * Maintained list: add a token when a new preview fetcher or crawler shows up in the click logs
 * (a spike of billable link clicks within seconds of an impression is the usual sign).
 * Matching is a case-insensitive substring test, so a token should be specific enough never to
 * occur in a browser's user agent ("Mobile Safari", "wv" and "CUBOT" device names must not match),
 * and in-app browsers where a person does the clicking (LINE, NAVER, Flipboard, Pinterest, Viber)
 * stay billable: only their preview fetchers are listed.
 */
export const BOT_USER_AGENT_TOKENS: readonly string[] = [
  // Search engines and SEO crawlers
  'googlebot', 'google-inspectiontool', 'adsbot-google', 'mediapartners-google', 'apis-google', 'feedfetcher-google',
  'google-pagerenderer', 'googleother', 'storebot-google', 'bingbot', 'bingpreview', 'msnbot', 'adidxbot', 'slurp',
  'duckduckbot', 'duckassistbot', 'baiduspider', 'yandexbot', 'yandex.com/bots', 'sogou web spider', 'exabot', 'seznambot', 'yeti/', 'applebot',
  'petalbot', 'ahrefsbot', 'semrushbot', 'mj12bot', 'dotbot', 'rogerbot', 'screaming frog', 'sitebulb', 'ia_archiver',
  'archive.org_bot', 'bytespider', 'amazonbot', 'ccbot', 'dataforseobot', 'blexbot', 'serpstatbot', 'megaindex',
  // AI crawlers and agent fetchers (an agent fetching the link is not a person clicking it)
  'gptbot', 'chatgpt-user', 'oai-searchbot', 'claudebot', 'claude-web', 'claude-user', 'anthropic-ai', 'perplexitybot',
  'perplexity-user', 'cohere-ai', 'diffbot', 'youbot', 'meta-externalagent', 'meta-externalfetcher', 'timpibot',
  // Link previews in chat and social apps
  'slackbot', 'slack-imgproxy', 'twitterbot', 'facebookexternalhit', 'facebookcatalog', 'facebot', 'discordbot',
  'telegrambot', 'whatsapp', 'linkedinbot', 'skypeuripreview', 'pinterestbot', 'redditbot', 'embedly',
  'iframely', 'vkshare', 'snap url preview', 'mastodon', 'bluesky cardyb', 'cardyb', 'nuzzel', 'quora link preview', 'outbrain', 'microsoft preview', 'msoffice', 'ms office', 'microsoft office',
  'kakaotalk-scrap', 'google-safety', 'zoominfobot', 'mattermost', 'rocket.chat', 'xing-contenttabreceiver',
  // Headless browsers, monitors and HTTP libraries
  'headlesschrome', 'phantomjs', 'puppeteer', 'playwright', 'selenium', 'webdriver', 'lighthouse', 'pagespeed',
  'gtmetrix', 'pingdom', 'uptimerobot', 'statuscake', 'site24x7', 'newrelicpinger', 'datadog', 'checkly',
  'curl/', 'wget/', 'python-requests', 'python-urllib', 'python-httpx', 'aiohttp', 'httpx', 'go-http-client',
  'okhttp', 'java/', 'apache-httpclient', 'libwww-perl', 'lwp::', 'node-fetch', 'undici', 'axios/', 'got (',
  'ruby', 'php/', 'guzzlehttp', 'postmanruntime', 'insomnia', 'httpie', 'scrapy', 'colly', 'wordpress', 'dart:io',
  // Generic crawler markers: a browser never advertises a bot page ("+http://…") or calls itself a spider
  'bot/', 'bot.htm', 'crawler', 'spider', '+http://', '+https://', 'preview', 'fetcher', 'scraper', 'monitor',
];

export type UserAgentClass = 'browser' | 'bot';

/**
 * `bot` for a missing user agent, one naming a token above, or one that does not start like a
 * browser's (every current browser sends `Mozilla/5.0`; Opera Presto sent `Opera/`). Err on
 * `bot`: a click wrongly not billed costs a few cents, one wrongly billed costs trust.
 */
export function classifyUserAgent(userAgent: string | undefined): UserAgentClass {
  if (!userAgent) return 'bot';
  const ua = userAgent.toLowerCase();
  if (!ua.startsWith('mozilla/') && !ua.startsWith('opera/')) return 'bot';
  return BOT_USER_AGENT_TOKENS.some((token) => ua.includes(token)) ? 'bot' : 'browser';
}
