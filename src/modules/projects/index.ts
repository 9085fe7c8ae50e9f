// What the projects module offers other modules beyond its role files: the readers of a project's
// settings, which decide whether a feature (the repository, say) is open to a caller.
export { featureLevel, parseSettings } from './projects.settings.ts';
