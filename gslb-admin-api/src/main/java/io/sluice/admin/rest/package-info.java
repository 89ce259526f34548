/**
 * The admin REST API: {@link io.sluice.admin.rest.AdminServer} (Netty HTTP/1.1, optional TLS) and
 * its versioned routes under {@code /api/v1}. Reads come from the current snapshot and the control
 * plane; changes go through {@link io.sluice.core.control.ControlPlane} with the authenticated
 * actor. Operator documentation: {@code docs/api.md} and {@code docs/openapi.yaml}.
 */
package io.sluice.admin.rest;
