// What a person's update in the thread becomes for pi: a button press, a
// command for pi ("/stop", "/new", …), or a user message (its text, photos
// as image content, other files as paths on disk). A voice note arrives as
// its transcript in the update's text where the supervisor transcribes.

import * as fs from "node:fs/promises";
import * as path from "node:path";

import { type Client, type Follower, types } from "@chatbus/client";

import { privateDir } from "./state.js";

const { ReferenceKind, UpdateKind } = types;

/** An image as pi takes it. */
export interface ImagePart {
  type: "image";
  data: string; // base64
  mimeType: string;
}

/** What an update asks of pi. */
export type Inbound =
  | { kind: "press"; data: string; interaction: string; messageId: string }
  | { kind: "command"; name: string; args: string; text: string }
  | { kind: "message"; text: string; fileIds: string[]; messageId: string; edited: boolean }
  | { kind: "ignore" };

/** The largest file downloaded for pi (bigger ones are named by id only). */
export const MAX_DOWNLOAD = 50 << 20;

/** At most this many files of one message are downloaded. */
export const MAX_FILES = 10;

const COMMAND = /^\/([A-Za-z][\w:.-]*)(?:@\S+)?(?:\s+([\s\S]*))?$/;

/** Sorts an update out: what it is and what it carries. */
export function classify(u: types.Update): Inbound {
  const ref = (kind: types.ReferenceKind) => u.references.find((r) => r.kind === kind)?.id ?? "";
  switch (u.kind) {
    case UpdateKind.CALLBACK_QUERY:
      return { kind: "press", data: u.text, interaction: ref(ReferenceKind.INTERACTION), messageId: ref(ReferenceKind.MESSAGE) };
    case UpdateKind.MESSAGE:
    case UpdateKind.EDITED_MESSAGE: {
      const text = u.text.trim();
      const fileIds = u.references.filter((r) => r.kind === ReferenceKind.FILE).map((r) => r.id);
      const m = COMMAND.exec(text);
      if (m && fileIds.length === 0 && u.kind === UpdateKind.MESSAGE) {
        return { kind: "command", name: m[1].toLowerCase(), args: (m[2] ?? "").trim(), text };
      }
      if (!text && fileIds.length === 0) return { kind: "ignore" };
      return { kind: "message", text, fileIds, messageId: ref(ReferenceKind.MESSAGE), edited: u.kind === UpdateKind.EDITED_MESSAGE };
    }
  }
  return { kind: "ignore" };
}

/** The image type of data by its first bytes, or undefined if it is no image pi shows. */
export function imageType(data: Uint8Array): string | undefined {
  const b = (i: number) => data[i];
  if (data.length >= 8 && b(0) === 0x89 && b(1) === 0x50 && b(2) === 0x4e && b(3) === 0x47) return "image/png";
  if (data.length >= 3 && b(0) === 0xff && b(1) === 0xd8 && b(2) === 0xff) return "image/jpeg";
  if (data.length >= 6 && b(0) === 0x47 && b(1) === 0x49 && b(2) === 0x46) return "image/gif";
  if (data.length >= 12 && b(0) === 0x52 && b(1) === 0x49 && b(2) === 0x46 && b(3) === 0x46 && b(8) === 0x57 && b(9) === 0x45) {
    return "image/webp";
  }
  return undefined;
}

/** A file downloaded: where it is, and the image it is, if it is one. */
export interface Downloaded {
  path: string;
  image?: ImagePart;
}

/**
 * Downloads a file of the thread into dir as <base><ext> (the extension
 * from the platform's path of it, if a plain one), through a temporary
 * file, and returns its path (and, for an image, its content for pi).
 */
export async function download(c: Client, f: Follower, fileId: string, dir: string, base: string): Promise<Downloaded> {
  privateDir(dir);
  const stream = c.bus.downloadFile({ session: f.session, fileId }, { timeoutMs: 120_000 });
  const chunks: Uint8Array[] = [];
  let size = 0;
  let platformPath = "";
  for await (const resp of stream) {
    if (resp.filePath && !platformPath) platformPath = resp.filePath;
    if (resp.size > MAX_DOWNLOAD) throw new Error(`the file is ${resp.size} bytes, more than ${MAX_DOWNLOAD}`);
    size += resp.chunk.length;
    if (size > MAX_DOWNLOAD) throw new Error(`the file is more than ${MAX_DOWNLOAD} bytes`);
    chunks.push(resp.chunk);
  }
  const data = Buffer.concat(chunks);
  const ext = /^\.[A-Za-z0-9]{1,8}$/.test(path.extname(platformPath)) ? path.extname(platformPath).toLowerCase() : "";
  const file = path.join(dir, base + ext);
  const tmp = `${file}.tmp`;
  await fs.writeFile(tmp, data, { mode: 0o600 });
  await fs.rename(tmp, file);
  const mime = imageType(data);
  return { path: file, image: mime ? { type: "image", data: data.toString("base64"), mimeType: mime } : undefined };
}
