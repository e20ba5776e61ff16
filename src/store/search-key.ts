/** The one normalization of ticket search lives in the protocol package, shared with the devices. */
export { searchKey, searchWords } from '@ticket-issuer/protocol';
