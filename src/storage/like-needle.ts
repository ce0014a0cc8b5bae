// How both backends turn a substring filter into LIKE patterns lives with the filter language
// (filters/like.ts), beside its JavaScript twin; the backends read it from here too.
export { containsPattern, rarestAt } from '../filters/like.js';
