import '@outpost/ui/styles.css';
import './console.css';
import { render } from 'preact';
import { App } from './app.js';

render(<App />, document.getElementById('app')!);
