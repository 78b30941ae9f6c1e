/** The client's errors: every failure it reports is a KartothekError (or a subclass). */

/** The server could not be read, or what it sent does not check out. */
export class KartothekError extends Error {
  /** The HTTP status of the answer that failed, when there was one. */
  readonly status: number | undefined;

  constructor(message: string, status?: number) {
    super(message);
    this.name = "KartothekError";
    this.status = status;
  }
}

/** A pack's sha256, signature, key or identity does not match: it is not kept. */
export class VerificationError extends KartothekError {
  constructor(message: string) {
    super(message);
    this.name = "VerificationError";
  }
}

/** A delta does not apply to this pack, or the result is not the release it names. */
export class DeltaError extends KartothekError {
  constructor(message: string) {
    super(message);
    this.name = "DeltaError";
  }
}
