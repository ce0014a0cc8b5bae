/** The meta key of the dataset sink's position, committed with the export watermark (every backend). */
export const SINK_POSITION_KEY = 'dataset_position';
