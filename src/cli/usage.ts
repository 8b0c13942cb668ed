/** A mistake in how a command was called: exit code 2, the message says the right form. */
export class UsageError extends Error {}
