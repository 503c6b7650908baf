/**
 * POSIX access control lists as Linux keeps them: the {@code system.posix_acl_access} and
 * {@code system.posix_acl_default} xattr format (a version-2 header, then 8-byte entries of tag, permission and
 * id), the kernel's validity rules, the mode/ACL correspondence (chmod rewrites the owner, mask-or-group and
 * other entries; an ACL of three entries is just a mode), inheritance of a directory's default ACL
 * ({@code posix_acl_create}), and the access check ({@code posix_acl_permission}) that a filesystem checking
 * permissions itself (without default_permissions) calls with the caller's uid, groups and wanted bits.
 */
package dev.ringfuse.fs.acl;
