/**
 * DynamoDB's condition and update expressions, evaluated on plain items, for unit tests that
 * stand in for the table: comparisons (=, <>, <, <=, >, >=), IN, AND, OR, NOT, parentheses,
 * attribute_exists and attribute_not_exists; SET, REMOVE and ADD. As DynamoDB does, a
 * comparison with a missing attribute is false.
 */
type Item = Record<string, unknown>;

export interface ExpressionInput {
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Record<string, unknown>;
}

const TOKEN = /\s*(<>|<=|>=|[=<>(),]|[#:]?[A-Za-z_][\w.]*)/y;

function tokenize(expression: string): string[] {
  const tokens: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < expression.length) {
    if (/^\s*$/.test(expression.slice(TOKEN.lastIndex))) break;
    const match = TOKEN.exec(expression);
    if (!match) throw new Error(`Cannot read the expression at ${expression.slice(TOKEN.lastIndex)}`);
    tokens.push(match[1]!);
  }
  return tokens;
}

function nameOf(token: string, input: ExpressionInput): string {
  if (!token.startsWith('#')) return token;
  const name = input.ExpressionAttributeNames?.[token];
  if (name === undefined) throw new Error(`No name for ${token}`);
  return name;
}

function operand(token: string, item: Item, input: ExpressionInput): unknown {
  if (token.startsWith(':')) {
    if (!(token in (input.ExpressionAttributeValues ?? {}))) throw new Error(`No value for ${token}`);
    return input.ExpressionAttributeValues![token];
  }
  return item[nameOf(token, input)];
}

function compare(left: unknown, comparator: string, right: unknown): boolean {
  if (left === undefined || right === undefined) return false;
  switch (comparator) {
    case '=':
      return left === right;
    case '<>':
      return left !== right;
    case '<':
      return (left as number) < (right as number);
    case '<=':
      return (left as number) <= (right as number);
    case '>':
      return (left as number) > (right as number);
    case '>=':
      return (left as number) >= (right as number);
    default:
      throw new Error(`Unknown comparator ${comparator}`);
  }
}

/** Whether `expression` holds for `item` (undefined: the item does not exist). */
export function conditionHolds(expression: string | undefined, item: Item | undefined, input: ExpressionInput): boolean {
  if (!expression) return true;
  const tokens = tokenize(expression);
  const subject = item ?? {};
  let at = 0;
  const peek = () => tokens[at];
  const take = (expected?: string) => {
    const token = tokens[at++];
    if (token === undefined || (expected !== undefined && token.toUpperCase() !== expected))
      throw new Error(`Expected ${expected ?? 'more'} in ${expression}`);
    return token;
  };
  const or = (): boolean => {
    let value = and();
    while (peek()?.toUpperCase() === 'OR') {
      take();
      value = and() || value;
    }
    return value;
  };
  const and = (): boolean => {
    let value = not();
    while (peek()?.toUpperCase() === 'AND') {
      take();
      value = not() && value;
    }
    return value;
  };
  const not = (): boolean => {
    if (peek()?.toUpperCase() === 'NOT') {
      take();
      return !not();
    }
    return primary();
  };
  const primary = (): boolean => {
    const token = take();
    if (token === '(') {
      const value = or();
      take(')');
      return value;
    }
    if (token === 'attribute_exists' || token === 'attribute_not_exists') {
      take('(');
      const exists = subject[nameOf(take(), input)] !== undefined;
      take(')');
      return token === 'attribute_exists' ? exists : !exists;
    }
    const left = operand(token, subject, input);
    const next = take();
    if (next.toUpperCase() === 'IN') {
      take('(');
      const options = [operand(take(), subject, input)];
      while (peek() === ',') {
        take();
        options.push(operand(take(), subject, input));
      }
      take(')');
      return left !== undefined && options.includes(left);
    }
    return compare(left, next, operand(take(), subject, input));
  };
  const value = or();
  if (at !== tokens.length) throw new Error(`Unread rest of ${expression}`);
  return value;
}

/** The item after `expression` (SET a = :v, REMOVE b, ADD n :d), applied to a copy. */
export function applyUpdate(expression: string, item: Item, input: ExpressionInput): Item {
  const next: Item = { ...item };
  const tokens = tokenize(expression);
  let at = 0;
  let clause = '';
  while (at < tokens.length) {
    const token = tokens[at]!;
    if (['SET', 'REMOVE', 'ADD'].includes(token.toUpperCase())) {
      clause = token.toUpperCase();
      at++;
      continue;
    }
    if (token === ',') {
      at++;
      continue;
    }
    const name = nameOf(token, input);
    if (clause === 'SET') {
      if (tokens[at + 1] !== '=') throw new Error(`Only SET a = :v is read: ${expression}`);
      next[name] = operand(tokens[at + 2]!, item, input);
      at += 3;
    } else if (clause === 'REMOVE') {
      delete next[name];
      at += 1;
    } else if (clause === 'ADD') {
      next[name] = ((next[name] as number | undefined) ?? 0) + (operand(tokens[at + 1]!, item, input) as number);
      at += 2;
    } else {
      throw new Error(`Cannot read ${expression}`);
    }
  }
  return next;
}
