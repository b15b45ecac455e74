export { default } from './point';
