/** The permission matrix over HTTP for the routes of its part (test/support/permission-matrix-http.ts). */
import { describeMatrixPart } from '../support/permission-matrix-http.ts';

describeMatrixPart('parts');
