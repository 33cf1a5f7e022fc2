import type { InputRef } from 'antd-mobile';
import { forwardRef } from 'react';
import { GroupedDigitsInput, type GroupedDigitsInputProps } from './grouped-digits-input';

/** `123456789012` → `1234 5678 9012`. */
export function groupInFours(digits: string): string {
  return digits.replace(/(\d{4})(?=\d)/g, '$1 ');
}

export type AccountNumberInputProps = Omit<GroupedDigitsInputProps, 'group' | 'normalize'>;

/**
 * A bank account or card number (SPEC.md §5 as PRODUCT.md §1 adapts it): digits only, shown in groups of
 * four, while the value stays plain digits. A masked saved number (`**** **** 4321`) shows until edited.
 */
export const AccountNumberInput = forwardRef<InputRef, AccountNumberInputProps>(function AccountNumberInput(props, ref) {
  return <GroupedDigitsInput ref={ref} {...props} group={groupInFours} />;
});
