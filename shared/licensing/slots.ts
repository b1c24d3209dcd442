/**
 * The collections each type of the licensing graph joins, by slot (slot i = GSI(i+2)): a
 * license is in its policy's (GSI2), its product's (GSI3) and its owner's (GSI4) collections.
 */
export const SLOTS = {
  policies: { product: 0 },
  licenses: { policy: 0, product: 1, owner: 2 },
  machines: { license: 0, product: 1, owner: 2 },
  components: { machine: 0, license: 1, product: 2, owner: 3 },
  processes: { machine: 0, license: 1, product: 2, owner: 3 },
} as const;
