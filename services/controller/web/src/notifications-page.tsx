import { NotificationChannelsCard } from './notification-channels-card.js';
import { NotificationEventsCard } from './notification-events-card.js';
import { NotificationGroupsCard } from './notification-groups-card.js';
import { NotificationHistoryCard } from './notification-history-card.js';
import type { Channel, Group } from './notifications.js';
import { useRecords } from './use-records.js';

export function NotificationsPage() {
  const channels = useRecords<Channel>('/api/notifications/channels');
  const groups = useRecords<Group>('/api/notifications/groups');
  return (
    <>
      <NotificationChannelsCard channels={channels} />
      <NotificationGroupsCard groups={groups} channels={channels.list.data ?? []} />
      <NotificationEventsCard channels={channels.list.data ?? []} groups={groups.list.data ?? []} />
      <NotificationHistoryCard />
    </>
  );
}
