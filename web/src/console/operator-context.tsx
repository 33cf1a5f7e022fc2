import { createContext, useContext } from 'react';
import type { Operator } from './api/types';

export const OperatorContext = createContext<Operator | null>(null);

/** The signed-in operator, inside the routes that need one. */
export function useOperator(): Operator {
  const operator = useContext(OperatorContext);
  if (!operator) throw new Error('useOperator needs a signed-in route');
  return operator;
}
