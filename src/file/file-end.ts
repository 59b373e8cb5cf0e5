import { fsExt } from "./fs-ext.js";

/**
 * The size of the open file `fd`, by `lseek(fd, 0, SEEK_END)`: one system call that returns a
 * number, where `fstat` also allocates a Stats object (and its Dates) and `stat` of the path
 * looks the path up as well. Half the cost of a stat on the append path, which asks this once per
 * write. It moves the descriptor's offset to the end, which changes nothing for a descriptor
 * opened with O_APPEND that is read only with explicit positions (as every session reader does).
 */
export function endOf(fd: number): number {
  const ext = fsExt();
  return ext.seekSync(fd, 0, ext.constants.SEEK_END);
}
