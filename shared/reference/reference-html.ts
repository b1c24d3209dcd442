/**
 * HTML built by a tagged template that escapes every interpolated string: text taken from the
 * API description can never become markup, wherever it lands (element content or a quoted
 * attribute value). Only fragments built by `html` itself are trusted.
 */

/** Markup already escaped: made only by `html`. */
export class SafeHtml {
  private constructor(readonly markup: string) {}

  static of(markup: string): SafeHtml {
    return new SafeHtml(markup);
  }

  toString(): string {
    return this.markup;
  }
}

/** What a template may interpolate: nothing (`undefined`, `null`, `false`) renders as nothing; lists are concatenated. */
export type Interpolation = SafeHtml | string | number | boolean | null | undefined | readonly Interpolation[];

const ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (character) => ENTITIES[character] ?? character);

function render(value: Interpolation): string {
  if (value instanceof SafeHtml) return value.markup;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === undefined || value === null || value === false) return '';
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: readonly Interpolation[]): SafeHtml {
  return SafeHtml.of(strings.reduce((markup, literal, i) => markup + literal + (i < values.length ? render(values[i]) : ''), ''));
}

/** Plain text as paragraphs: blank lines separate them, other line breaks are kept. No markup is interpreted. */
export function paragraphs(text: string | undefined, className = 'description'): SafeHtml {
  if (!text?.trim()) return html``;
  const blocks = text.trim().split(/\n\s*\n/);
  const lines = (block: string) => block.split('\n').map((line, i) => [i > 0 && html`<br>`, line]);
  return html`<div class="${className}">${blocks.map((block) => html`<p>${lines(block)}</p>`)}</div>`;
}

/** A fragment identifier made of letters, digits and `-_.` only, so it needs no encoding in a link. */
export const anchor = (prefix: string, name: string): string => `${prefix}-${name.replace(/[^A-Za-z0-9_.-]+/g, '-')}`;
