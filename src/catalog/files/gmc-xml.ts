import { createReadStream } from 'node:fs';
import sax, { type QualifiedAttribute, type QualifiedTag, type SAXParser, type Tag } from 'sax';
import { addGmcValue, GMC_NAMESPACE, type GmcFields, mapGmcItem } from './gmc-fields.js';
import { FeedFormatError, type FeedRecord } from './types.js';

export interface GmcXmlOptions {
  /** Overrides the channel (or Atom feed) title as the merchant. */
  merchant?: string;
}

/** Unprefixed elements that count as item fields; every other field needs the GMC namespace. */
const PLAIN_FIELDS = new Set(['title', 'link', 'description', 'summary']);

// sax reports a bare "&" (as in "AT&T") this way and keeps the literal text, which is what we want.
const isEntityError = (message: string) => message.startsWith('Invalid character entity') || message.startsWith('Invalid character in entity name');

interface OpenItem {
  line: number;
  depth: number;
  fields: GmcFields;
  error: string | null;
}

const localName = (qname: string) => qname.slice(qname.indexOf(':') + 1).toLowerCase();
const prefixOf = (qname: string) => (qname.includes(':') ? qname.slice(0, qname.indexOf(':')) : '');
// With sax's xmlns option off, attribute values are plain strings; the union is the typings'.
const attributeValue = (value: string | QualifiedAttribute | undefined): string | undefined => (typeof value === 'string' ? value : value?.value);
const attribute = (tag: Tag | QualifiedTag, name: string): string | undefined => attributeValue(tag.attributes[name]);

/** Turns sax events into feed records; one instance per file. */
class GmcXmlCollector {
  readonly records: FeedRecord[] = [];
  fatal: FeedFormatError | null = null;
  root: 'rss' | 'feed' | null = null;
  /** Set just before parser.close(). */
  ending = false;
  private readonly stack: string[] = [];
  private readonly googlePrefixes = new Set(['g']);
  private item: OpenItem | null = null;
  private field: { name: string; text: string } | null = null;
  private channelTitle: string | null = null;
  private titleText: string | null = null;

  constructor(
    private readonly parser: SAXParser,
    private readonly merchant: string | undefined,
    private readonly path: string,
  ) {
    parser.onopentag = (tag) => this.open(tag);
    parser.onclosetag = () => this.close();
    parser.ontext = (text) => this.text(text);
    parser.oncdata = (text) => this.text(text);
    parser.onerror = (err) => this.error(err);
  }

  private open(tag: Tag | QualifiedTag): void {
    for (const [name, value] of Object.entries(tag.attributes)) {
      if (name.startsWith('xmlns:') && attributeValue(value) === GMC_NAMESPACE) this.googlePrefixes.add(name.slice('xmlns:'.length));
    }
    const local = localName(tag.name);
    if (this.stack.length === 0) {
      if (local !== 'rss' && local !== 'feed') this.fatal ??= this.failure(`root element <${tag.name}> is neither RSS <rss> nor Atom <feed>`);
      else this.root = local;
    }
    this.stack.push(local);
    const depth = this.stack.length;
    const path = this.stack.join('/');
    if (this.item === null && (path === 'rss/channel/item' || path === 'feed/entry')) {
      this.item = { line: this.parser.line + 1, depth, fields: new Map(), error: null };
    } else if (this.item !== null && depth === this.item.depth + 1) {
      this.openField(tag, local);
    } else if (this.item === null && (path === 'rss/channel/title' || path === 'feed/title') && prefixOf(tag.name) === '') {
      this.titleText = '';
    }
  }

  private openField(tag: Tag | QualifiedTag, local: string): void {
    const prefix = prefixOf(tag.name);
    const counts = prefix === '' ? PLAIN_FIELDS.has(local) : this.googlePrefixes.has(prefix);
    if (!counts) return;
    const href = attribute(tag, 'href');
    // Atom links are empty elements: <link rel="alternate" href="…"/>.
    if (local === 'link' && href !== undefined) {
      const rel = attribute(tag, 'rel') ?? 'alternate';
      if (rel === 'alternate') addGmcValue(this.item!.fields, 'link', href);
      return;
    }
    this.field = { name: local, text: '' };
  }

  private text(text: string): void {
    if (this.field !== null) this.field.text += text;
    else if (this.titleText !== null) this.titleText += text;
  }

  private close(): void {
    this.stack.pop();
    const depth = this.stack.length;
    if (this.item === null) {
      if (this.titleText !== null) {
        this.channelTitle = this.titleText.trim() || null;
        this.titleText = null;
      }
      return;
    }
    if (this.field !== null && depth === this.item.depth) {
      addGmcValue(this.item.fields, this.field.name, this.field.text);
      this.field = null;
    } else if (depth === this.item.depth - 1) {
      this.emitItem();
    }
  }

  private error(err: Error): void {
    const message = err.message.split('\n')[0] ?? err.message;
    // At close, sax complains once per unclosed tag; finish() reports an open item once instead.
    if (!this.ending) {
      if (this.root === null) this.fatal ??= this.failure(`not an XML feed: ${message}`);
      else if (this.item !== null && !isEntityError(message)) this.item.error ??= `${message} (line ${this.parser.line + 1})`;
    }
    this.parser.resume();
  }

  /** The file cannot be read as a feed, at the parser's position. */
  private failure(detail: string): FeedFormatError {
    return new FeedFormatError(detail, { file: this.path, line: this.parser.line + 1, column: this.parser.column + 1 });
  }

  emitItem(): void {
    const item = this.item;
    if (item === null) return;
    if (item.error !== null) this.records.push({ line: item.line, error: 'malformed_xml', detail: item.error });
    else this.records.push({ line: item.line, row: mapGmcItem(item.fields, this.merchant ?? this.channelTitle ?? undefined) });
    this.item = null;
    this.field = null;
  }

  /** A file that ends inside an item (truncated, or an unclosed quote swallowed the rest). */
  finish(): void {
    if (this.item === null) return;
    this.item.error ??= 'the file ends inside this item';
    this.emitItem();
  }
}

/**
 * Streams a Google Merchant Center RSS 2.0 (`<rss><channel><item>`) or Atom (`<feed><entry>`)
 * feed with sax. Plain title/link/description and `g:` fields both count; CDATA and entities
 * are decoded; nested groups (`g:shipping`) are ignored. The channel title is the merchant unless
 * `options.merchant` is given. An item with broken markup becomes a `malformed_xml` record.
 * Throws FeedFormatError for a file that is not XML or whose root is not `rss`/`feed`.
 */
export async function* readGmcXml(path: string, options: GmcXmlOptions = {}): AsyncGenerator<FeedRecord> {
  const parser = sax.parser(true, { position: true });
  const collector = new GmcXmlCollector(parser, options.merchant, path);
  let first = true;
  for await (const piece of createReadStream(path, { encoding: 'utf8' })) {
    const chunk = String(piece);
    parser.write(first ? chunk.replace(/^\uFEFF/, '') : chunk);
    first = false;
    if (collector.fatal) throw collector.fatal;
    yield* collector.records.splice(0);
  }
  collector.ending = true;
  parser.close();
  if (collector.fatal) throw collector.fatal;
  if (collector.root === null) throw new FeedFormatError('no XML root element', { file: path });
  collector.finish();
  yield* collector.records.splice(0);
}
