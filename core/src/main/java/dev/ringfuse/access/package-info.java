/**
 * POSIX permission checks for filesystems that enforce permissions themselves, i.e. mounts without
 * {@code default_permissions}, where the kernel checks nothing but the execute bits of regular files; and
 * POSIX ACLs, which every filesystem that offers them keeps itself.
 *
 * <p>Concepts:
 * <ul>
 *   <li><b>{@link dev.ringfuse.access.Caller}</b>: who makes a request: the uid and gid the kernel sends
 *       (the caller's fsuid/fsgid) and, read only when a check needs them, its supplementary groups from
 *       {@code /proc/PID/task/PID/status}, as libfuse's {@code fuse_req_getgroups} reads them. uid 0 stands
 *       for the capabilities root has (CAP_DAC_OVERRIDE, CAP_FOWNER, CAP_CHOWN, CAP_FSETID,
 *       CAP_SYS_ADMIN): a FUSE server cannot see the caller's capabilities.</li>
 *   <li><b>{@link dev.ringfuse.access.Subject}</b>: what is checked: type and permission bits, owner,
 *       group, and optional {@link dev.ringfuse.access.ExtendedAccess} entries (a POSIX ACL).</li>
 *   <li><b>{@link dev.ringfuse.access.Permissions}</b>: the kernel's rules (generic_permission, may_delete,
 *       setattr_prepare, chown_ok, xattr_permission, may_linkat) as static checks that throw
 *       {@link dev.ringfuse.FuseException} with the errno the kernel would return.</li>
 *   <li><b>{@link dev.ringfuse.access.PosixAcl}</b>: POSIX ACLs as Linux keeps them, for any filesystem that
 *       stores them (FUSE_POSIX_ACL: the kernel enforces them with default_permissions, the filesystem keeps
 *       them): the {@code system.posix_acl_access}/{@code _default} xattr format and the kernel's validity
 *       rules, the mode/ACL correspondence (chmod rewrites the owner, mask-or-group and other entries; an ACL
 *       of three entries is just a mode), inheritance of a directory's default ACL ({@code posix_acl_create}),
 *       and the access check ({@code posix_acl_permission}) behind an {@link dev.ringfuse.access.ExtendedAccess}.
 *       What the kernel leaves to the filesystem (the mode following a set ACL, chmod rewriting it,
 *       inheritance on create) is here too ({@code set}, {@code afterChmod}, {@code inherit}): memfs,
 *       passthrough, the pool, sqlfs and the path API's PathMemFs share it.</li>
 * </ul>
 */
package dev.ringfuse.access;
