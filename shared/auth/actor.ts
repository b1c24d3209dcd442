/**
 * Who is asking, and where: what a service needs to know of a request, and nothing of HTTP.
 * The pipeline (shared/http/pipeline.ts) builds one from the account, the environment and the
 * credential it has resolved; services take it with the typed input of their operation.
 */
import type { Account } from '../resources/accounts/entity.ts';
import type { Environment } from '../resources/environments/entity.ts';
import type { UserRecord } from '../resources/users/entity.ts';
import type { Scope } from '../store/scope.ts';
import type { Bearer } from './bearer.ts';

/** A request's account and environment, before or without a credential. */
export interface Requester {
  account: Account;
  environment: Environment | null;
  /** What the request may read and where it writes: see shared/store/scope.ts. */
  scope: Scope;
}

/** A request made with a credential: a token or a license key. */
export interface Actor extends Requester {
  bearer: Bearer;
  /**
   * What the request asked the policies, in order (`<type>.<action>`, and `<type>.<action>@record`
   * when asked of a record): the pipeline answers only if the operation asked what it declares it
   * authorizes (shared/http/pipeline.ts). Absent where no request is (tests, workers).
   */
  asked?: string[];
}

/** A log-in: the user whose e-mail and password were checked (HTTP Basic). */
export interface LoggingIn extends Requester {
  user: UserRecord;
}
