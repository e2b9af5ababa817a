/**
 * eslint -f json (one array of file results, on one line) → what eslint's default stylish format
 * prints: each file with problems, then a line per message `line:col  severity  message  rule`,
 * and the `✖ N problems (E errors, W warnings)` total; the files without problems are counted on
 * the last line: `eslint -f json: 13 files linted, 11 without problems`. Lines around the report
 * (npm's script banner) stay.
 */
import { isObject } from '../../json/payload.js';
import type { Doc, Line } from '../stages.js';
import { documentOf, type Json, num, plural, str } from './json-lines.js';

interface Message {
  line: number;
  column: number;
  severity: number;
  message: string;
  rule: string;
}

function messagesOf(file: Json): Message[] {
  const list = Array.isArray(file.messages) ? (file.messages as Json[]) : [];
  return list.map((m) => ({
    line: num(m.line) ?? 0,
    column: num(m.column) ?? 0,
    severity: num(m.severity) ?? 0,
    // stylish drops a message's final period
    message: (str(m.message) ?? '').replace(/([^ ])\.$/u, '$1'),
    rule: str(m.ruleId) ?? '',
  }));
}

function isReport(v: unknown): v is Json[] {
  return Array.isArray(v) && v.length > 0 && v.every((f) => isObject(f) && 'filePath' in f);
}

export function decodeEslintJson(doc: Doc): Doc {
  const out: Line[] = [];
  let decoded = false;
  const write = (text: string) => out.push({ text, eol: doc.nl, src: 0 });
  for (const l of doc.lines) {
    const report = l.text.trimStart().startsWith('[') ? documentOf(l.text) : undefined;
    if (!isReport(report)) {
      out.push(l);
      continue;
    }
    decoded = true;
    let errors = 0;
    let warnings = 0;
    let clean = 0;
    for (const file of report) {
      const messages = messagesOf(file);
      if (messages.length === 0) {
        clean++;
        continue;
      }
      write(str(file.filePath) ?? '?');
      for (const m of messages) {
        if (m.severity === 2) errors++;
        else warnings++;
        const level = m.severity === 2 ? 'error' : 'warning';
        write(`  ${m.line}:${m.column}  ${level}  ${m.message}${m.rule ? `  ${m.rule}` : ''}`);
      }
      write('');
    }
    const problems = errors + warnings;
    if (problems > 0)
      write(`✖ ${plural(problems, 'problem')} (${plural(errors, 'error')}, ${plural(warnings, 'warning')})`);
    write(`eslint -f json: ${plural(report.length, 'file')} linted, ${clean} without problems`);
  }
  return decoded ? { ...doc, lines: out } : doc;
}
