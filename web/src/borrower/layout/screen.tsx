import type { ReactNode } from 'react';
import { PageHeader } from '../ui/page-header';

/** One screen: its top bar (title, optional back button) and its content as the page's main landmark. */
export function Screen({ title, backTo, children }: { title: string; backTo?: string; children: ReactNode }) {
  return (
    <>
      <PageHeader title={title} backTo={backTo} />
      <main className="screen">{children}</main>
    </>
  );
}
