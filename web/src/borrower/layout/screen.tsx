import type { ReactNode } from 'react';
import { PageHeader } from '../ui/page-header';
import { TabBar } from './tab-bar';

/**
 * One screen: its top bar (title, optional back button), the tabs of the signed-in places when `tabs`,
 * and its content as the page's main landmark.
 */
export function Screen({ title, backTo, tabs, children }: { title: string; backTo?: string; tabs?: boolean; children: ReactNode }) {
  return (
    <>
      <PageHeader title={title} backTo={backTo} />
      {tabs && <TabBar />}
      <main className="screen">{children}</main>
    </>
  );
}
