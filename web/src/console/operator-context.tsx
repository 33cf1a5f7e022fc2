import { createContext, useContext } from 'react';
import type { ApiMarket, Operator } from './api/types';

export const OperatorContext = createContext<Operator | null>(null);

/** The signed-in operator, inside the routes that need one. */
export function useOperator(): Operator {
  const operator = useContext(OperatorContext);
  if (!operator) throw new Error('useOperator needs a signed-in route');
  return operator;
}

/** The markets Kilat lends in, India first, as every screen lists them. */
export const ALL_MARKETS: readonly ApiMarket[] = ['IN', 'ID'];

/**
 * The markets the signed-in operator sees (docs/API-CONSOLE.md, "Markets of an operator"), India first: the market
 * tabs, filters and pickers offer these only. The server refuses any other (and answers another market's order as not
 * found); this keeps the screens from offering what would be refused.
 */
export function useOperatorMarkets(): readonly ApiMarket[] {
  const operator = useOperator();
  return ALL_MARKETS.filter((m) => operator.markets.includes(m));
}

/** `?market=` when it is one of `markets`, else the first of them. */
export function marketIn(params: URLSearchParams, markets: readonly ApiMarket[]): ApiMarket {
  const asked = params.get('market');
  return markets.find((m) => m === asked) ?? markets[0] ?? 'IN';
}
