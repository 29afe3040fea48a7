import { fileURLToPath } from 'node:url';
import { outpostConsole } from '@outpost/ui/vite';

export default outpostConsole({ root: fileURLToPath(new URL('.', import.meta.url)), map: true });
