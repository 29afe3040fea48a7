import type { FunctionComponent } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ConditionsPage } from './conditions-page.js';
import { HealthPage } from './health-page.js';
import { HistoryPage } from './history-page.js';
import { NotificationsPage } from './notifications-page.js';
import { RelaynodePage } from './relaynode-page.js';
import { SchedulesPage } from './schedules-page.js';
import { SettingsPage } from './settings-page.js';
import { WebhooksPage } from './webhooks-page.js';

export type PageId =
  | 'status'
  | 'history'
  | 'health'
  | 'conditions'
  | 'settings'
  | 'schedules'
  | 'webhooks'
  | 'relaynode'
  | 'notifications';

export const PAGES: { id: PageId; title: string; component: FunctionComponent | null }[] = [
  { id: 'status', title: 'Status', component: null },
  { id: 'history', title: 'History', component: HistoryPage },
  { id: 'health', title: 'Health', component: HealthPage },
  { id: 'conditions', title: 'Conditions', component: ConditionsPage },
  { id: 'settings', title: 'Settings', component: SettingsPage },
  { id: 'schedules', title: 'Schedules', component: SchedulesPage },
  { id: 'webhooks', title: 'Webhooks', component: WebhooksPage },
  { id: 'relaynode', title: 'Relay node', component: RelaynodePage },
  { id: 'notifications', title: 'Notifications', component: NotificationsPage },
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
