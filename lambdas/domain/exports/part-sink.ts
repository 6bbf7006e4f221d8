/**
 * The bytes of an export file on their way to an S3 multipart upload (docs/EXPORT.md,
 * "Writing in pieces"): appended to a buffer, uploaded as the next part once the buffer
 * holds at least a part's size (S3: every part but the last at least 5 MiB). After each
 * part the caller stores the writer's resume state with the part ETags; a run that stops
 * before that loses only the unsent buffer, which the next run writes again from the same
 * resume state, byte for byte, under the same part number.
 */
import { startUpload, uploadPart } from '../../store/export-objects.js';

/** The upload as kept on the export item between runs. */
export interface UploadState {
  key: string;
  upload_id: string;
  /** ETags of the parts uploaded, part 1 first. */
  etags: string[];
}

export class PartSink {
  private chunks: Uint8Array[] = [];
  private size = 0;

  private constructor(
    readonly upload: UploadState,
    private readonly partBytes: number,
  ) {}

  /** Goes on with `upload`, or starts a new upload to `key`. */
  static async open(upload: UploadState | null, key: string, format: 'json' | 'pdf', partBytes: number): Promise<PartSink> {
    const state = upload ?? { key, upload_id: await startUpload(key, format), etags: [] };
    return new PartSink({ ...state, etags: [...state.etags] }, partBytes);
  }

  /** Bytes buffered and not yet uploaded. */
  get buffered(): number {
    return this.size;
  }

  write(bytes: Uint8Array): void {
    if (bytes.byteLength === 0) return;
    this.chunks.push(bytes);
    this.size += bytes.byteLength;
  }

  /** Whether the buffer holds a whole part. */
  get full(): boolean {
    return this.size >= this.partBytes;
  }

  /** Uploads the buffer as the next part (any size: the last part may be small). */
  async flush(): Promise<void> {
    if (this.size === 0) return;
    const body = Buffer.concat(this.chunks, this.size);
    const etag = await uploadPart(this.upload.key, this.upload.upload_id, this.upload.etags.length + 1, body);
    this.upload.etags.push(etag);
    this.chunks = [];
    this.size = 0;
  }
}
