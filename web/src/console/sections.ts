// What each role may open (docs/API-CONSOLE.md, PRODUCT.md §6), in one place: the navigation shows the sections an
// operator's roles allow, and each route checks the same list.
import { consolePaths } from './paths';
import type { Operator, Role } from './api/types';

export type SectionKey = 'queue' | 'payouts' | 'repayments' | 'audit' | 'products' | 'operators' | 'dashboard' | 'complaints' | 'contact' | 'faq' | 'site' | 'collections' | 'reconciliation';

/** The navigation's groups, in the order it shows them: the day's work, money, oversight, settings. */
export type SectionGroup = 'work' | 'money' | 'oversight' | 'settings';
export const GROUPS: readonly SectionGroup[] = ['work', 'money', 'oversight', 'settings'];
const GROUP_OF: Record<SectionKey, SectionGroup> = {
  queue: 'work',
  collections: 'work',
  complaints: 'work',
  contact: 'work',
  payouts: 'money',
  repayments: 'money',
  reconciliation: 'money',
  dashboard: 'oversight',
  audit: 'oversight',
  products: 'settings',
  operators: 'settings',
  faq: 'settings',
  site: 'settings',
};
/** Within a group, the order the navigation lists its sections. */
const NAV_ORDER: readonly SectionKey[] = ['queue', 'collections', 'complaints', 'contact', 'payouts', 'repayments', 'reconciliation', 'dashboard', 'audit', 'products', 'operators', 'faq', 'site'];

export interface Section {
  key: SectionKey;
  path: string;
  roles: readonly Role[];
}

export const SECTIONS: readonly Section[] = [
  { key: 'queue', path: consolePaths.queue, roles: ['reviewer', 'support'] },
  { key: 'payouts', path: consolePaths.payouts, roles: ['finance'] },
  { key: 'repayments', path: consolePaths.repayments, roles: ['finance'] },
  { key: 'audit', path: consolePaths.audit, roles: ['admin', 'support'] },
  { key: 'products', path: consolePaths.products, roles: ['admin'] },
  { key: 'operators', path: consolePaths.operators, roles: ['admin'] },
  { key: 'dashboard', path: consolePaths.dashboard, roles: ['admin', 'finance'] },
  { key: 'complaints', path: consolePaths.complaints, roles: ['admin', 'support'] },
  { key: 'contact', path: consolePaths.contact, roles: ['admin', 'support'] },
  { key: 'faq', path: consolePaths.faq, roles: ['admin'] },
  { key: 'site', path: consolePaths.site, roles: ['admin'] },
  { key: 'collections', path: consolePaths.collections, roles: ['collections', 'admin'] },
  // Last: an admin's home stays the audit trail; finance reads it after Repayments.
  { key: 'reconciliation', path: consolePaths.reconciliation, roles: ['finance', 'admin'] },
];

/** Who may open an order (`GET /orders/{orderNo}`). */
export const ORDER_ROLES: readonly Role[] = ['reviewer', 'finance', 'support'];
/** Who may read a loan's contact history (the order view's collections section). */
export const CONTACT_HISTORY_ROLES: readonly Role[] = ['collections', 'admin', 'reviewer', 'finance', 'support'];
/** Who may approve or reject. */
export const DECIDE_ROLES: readonly Role[] = ['reviewer'];

export function hasAnyRole(operator: Pick<Operator, 'roles'>, roles: readonly Role[]): boolean {
  return operator.roles.some((role) => roles.includes(role));
}

export function sectionsFor(operator: Pick<Operator, 'roles'>): Section[] {
  return SECTIONS.filter((section) => hasAnyRole(operator, section.roles));
}

/** The operator's sections by navigation group, empty groups left out. */
export function groupedSectionsFor(operator: Pick<Operator, 'roles'>): { group: SectionGroup; sections: Section[] }[] {
  const mine = sectionsFor(operator).sort((a, b) => NAV_ORDER.indexOf(a.key) - NAV_ORDER.indexOf(b.key));
  return GROUPS.map((group) => ({ group, sections: mine.filter((s) => GROUP_OF[s.key] === group) })).filter((g) => g.sections.length > 0);
}
