/** Components: a machine's hardware (shared/auth/policies/graph.ts). */
import { activations, crud } from '../../auth/policies/graph.ts';

export const componentPolicy = activations('components', crud('component'), ['create', 'delete'], {
  licensee: ['component.create', 'component.read', 'component.delete'],
  product: '*',
});
