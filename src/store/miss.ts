/**
 * What `cg expand` (and anything else serving keys) says when a key does not give its original back:
 * one line that tells missing, corrupt and unreachable apart, and always the way back (re-running the
 * command stashes the output again; a corrupt entry is replaced by that stash).
 */
import type { EntryRead } from './store.js';

export type Miss = Extract<EntryRead, { found: false }>;

export function missMessage(key: string, miss: Miss, where: string): string {
  switch (miss.why) {
    case 'corrupt':
      return `${key}: the entry in the store at ${where} is corrupt (${miss.detail ?? 'it does not match its key'}); re-run the command to stash its output again`;
    case 'unavailable':
      return `${key}: cannot read the store at ${where} (${miss.detail ?? 'unavailable'}); try again, or re-run the command`;
    default:
      return `${key}: not in the store at ${where} (it expired or was never stored here); re-run the command to get its output again`;
  }
}
