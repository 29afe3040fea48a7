import type { FunctionComponent } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { HistoryPage } from './history-page.js';
import { SettingsPage } from './settings-page.js';

export type PageId = 'status' | 'history' | 'settings' | 'schedules' | 'webhooks' | 'relaynode' | 'notifications';

export const PAGES: { id: PageId; title: string; component: FunctionComponent | null }[] = [
  { id: 'status', title: 'Status', component: null },
  { id: 'history', title: 'History', component: HistoryPage },
  { id: 'settings', title: 'Fuel & limits', component: SettingsPage },
];

const fromHash = (): PageId => {
  const id = location.hash.replace(/^#\/?/, '');
  return (PAGES.find((p) => p.id === id)?.id ?? 'status') as PageId;
};

/** The page is the URL hash (#/history), so reload and the back button keep the place. */
export function usePage(): [PageId] {
  const [page, setPage] = useState<PageId>(fromHash);
  useEffect(() => {
    const on = () => setPage(fromHash());
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return [page];
}
