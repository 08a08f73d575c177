/**
 * The documentation a reader of the repository alone can trust: every link between its pages
 * lands on a file and a heading that exist, and the pages that say how Aisle works today carry no
 * dated run, commit hash or pointer to what the repository does not hold (design records in
 * docs/decisions/ keep their dates and measurements: they say what was tried and when).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');

function markdownFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    // Installed packages' own pages (examples/node_modules) are not ours.
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : markdownFiles(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

const PAGES = [
  'README.md',
  'BENCHMARKS.md',
  'data/README.md',
  ...markdownFiles('docs'),
  ...(existsSync(join(ROOT, 'examples')) ? markdownFiles('examples') : []),
];
const CURRENT = PAGES.filter((page) => page.startsWith('docs/') && !page.startsWith('docs/decisions/'));

/** Markdown with its fenced code blocks and inline code left out: a command may hold anything. */
function prose(text: string): string {
  return text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens; repeats get -1, -2, … */
function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  const withoutCode = text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  for (const [, heading] of withoutCode.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = heading!
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    result.add(n === 0 ? base : `${base}-${n}`);
  }
  return result;
}

/**
 * Dates that name a protocol's revision, not a run: MCP's revisions, the UCP version and the ACP
 * feed specification Aisle implements (docs/mcp.md, docs/commerce.md).
 */
const PROTOCOL_REVISIONS = new Set(['2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28', '2026-04-08', '2026-04-17']);

describe('documentation', () => {
  it('finds the pages it checks', () => {
    expect(CURRENT.length).toBeGreaterThan(15);
    expect(PAGES).toContain('docs/decisions/0001-reading-conversations.md');
  });

  it('links only to files and headings that exist', () => {
    const broken: string[] = [];
    let checked = 0;
    for (const page of PAGES) {
      const text = prose(readFileSync(join(ROOT, page), 'utf8'));
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target!)) continue; // https:, mailto: …: outside the repository
        const [path, anchor] = target!.split('#') as [string, string | undefined];
        const file = path === '' ? join(ROOT, page) : resolve(dirname(join(ROOT, page)), decodeURIComponent(path));
        checked++;
        if (!existsSync(file)) {
          broken.push(`${page}: ${target} (no file ${relative(ROOT, file)})`);
          continue;
        }
        if (anchor !== undefined && file.endsWith('.md') && !anchors(readFileSync(file, 'utf8')).has(decodeURIComponent(anchor))) {
          broken.push(`${page}: ${target} (no heading #${anchor} in ${relative(ROOT, file)})`);
        }
      }
    }
    expect(checked).toBeGreaterThan(100);
    expect(broken).toEqual([]);
  });

  it('keeps dated runs, commit hashes and pointers outside the repository to docs/decisions/', () => {
    const rules: [string, RegExp][] = [
      ['a date', /\b20\d\d-[01]\d-[0-3]\d\b/],
      ['a commit hash', /\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b/],
      ['a time of day of a run', /\b(?:run|measured|started) at \d\d:\d\d\b/i],
      ['a closing note', /closing note/i],
      ['an issue number', /\bissue #?\d+/i],
      ['the design contract', /\bCONTRACT\b/],
    ];
    const found: string[] = [];
    for (const page of CURRENT) {
      // Addresses left out: a public page may be pinned to an upstream commit.
      const lines = prose(readFileSync(join(ROOT, page), 'utf8'))
        .replace(/<?https?:\/\/[^\s)>]+>?/g, '')
        .split('\n');
      lines.forEach((line, i) => {
        for (const [what, pattern] of rules) {
          const hits = [...line.matchAll(new RegExp(pattern, 'g'))].map((m) => m[0]).filter((hit) => !PROTOCOL_REVISIONS.has(hit));
          if (hits.length > 0) found.push(`${page}:${i + 1}: ${what}: ${line.trim().slice(0, 120)}`);
        }
      });
    }
    expect(found).toEqual([]);
  });

  it('sees a rule break where there is one (the check itself)', () => {
    expect(prose('ran on 2026-11-24 `at 2026-11-24`')).toContain('2026-11-24');
    expect(prose('```sh\nnpm run eval 2026-11-24\n```\n')).not.toContain('2026-11-24');
    expect([...anchors('# How it works\n## Catalog upkeep: *what* runs\n## Catalog upkeep: *what* runs\n')]).toEqual([
      'how-it-works',
      'catalog-upkeep-what-runs',
      'catalog-upkeep-what-runs-1',
    ]);
  });
});
