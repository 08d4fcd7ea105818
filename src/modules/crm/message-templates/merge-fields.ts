// Merge fields: {{name}} tokens in a template's subject and body (docs/crm-sequences.md, "Merge fields").
import { MERGE_FIELD as TOKEN } from '../../../platform/values/markup';

/** Every distinct merge-field name in the texts, in order of first appearance (subject before body). */
export function extractMergeFields(...texts: (string | null | undefined)[]): string[] {
  const seen = new Set<string>();
  for (const value of texts) {
    if (!value) continue;
    for (const match of value.matchAll(TOKEN)) seen.add(match[1]!);
  }
  return [...seen];
}

/** The merge fields the sequence runner fills in; any other token renders as an empty string. */
export const KNOWN_MERGE_FIELDS = ['firstName', 'lastName', 'email', 'clinicName'] as const;
export type MergeValues = Partial<Record<(typeof KNOWN_MERGE_FIELDS)[number], string | null>>;

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);

/**
 * Replaces every token with its value (unknown names and missing values: empty). `html`: the values are
 * HTML-escaped (email bodies are HTML; subjects and SMS are plain text and are not escaped).
 */
export function renderMergeFields(template: string, values: MergeValues, options: { html?: boolean } = {}): string {
  return template.replace(TOKEN, (_token, name: string) => {
    const value = Object.hasOwn(values, name) ? ((values as Record<string, string | null | undefined>)[name] ?? '') : '';
    return options.html ? escapeHtml(value) : value;
  });
}
