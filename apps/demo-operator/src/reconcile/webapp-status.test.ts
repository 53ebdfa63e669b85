import type { Deployment } from '@k/clientset/apps/v1';
import { describe, expect, it } from 'vitest';
import type { WebApp } from '../generated/web-app-v1beta1.js';
import { sameStatus, webAppStatus } from './webapp-status.js';

const webapp: WebApp = {
  metadata: { name: 'hello', namespace: 'shop', generation: 2 },
  spec: { container: { image: 'nginx' }, replicas: 2 },
};

function deployment(status: NonNullable<Deployment['status']>, generation = 1): Deployment {
  return { metadata: { name: 'hello', generation }, spec: { selector: {}, template: {} }, status };
}

const rolledOut = deployment({
  observedGeneration: 1,
  replicas: 2,
  updatedReplicas: 2,
  readyReplicas: 2,
  availableReplicas: 2,
  conditions: [
    { type: 'Available', status: 'True' },
    { type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable' },
  ],
});

function condition(status: ReturnType<typeof webAppStatus>, type: string) {
  return status.conditions?.find((candidate) => candidate.type === type);
}

describe('webAppStatus', () => {
  it('follows the Deployment: counts, generation, selector and conditions', () => {
    const status = webAppStatus(webapp, rolledOut, { paused: false }, '2026-01-01T00:00:00Z');
    expect(status).toMatchObject({
      replicas: 2,
      readyReplicas: 2,
      observedGeneration: 2,
      selector: 'app.kubernetes.io/name=webapp,app.kubernetes.io/instance=hello',
    });
    expect(condition(status, 'Available')).toMatchObject({
      status: 'True',
      reason: 'MinimumReplicasAvailable',
      observedGeneration: 2,
    });
    expect(condition(status, 'Progressing')).toMatchObject({
      status: 'False',
      reason: 'RolloutComplete',
    });
    expect(condition(status, 'Degraded')).toMatchObject({ status: 'False', reason: 'AsExpected' });
  });

  it('says a rollout is under way until the Deployment controller caught up and every Pod is available', () => {
    const rolling = deployment(
      {
        observedGeneration: 1,
        replicas: 2,
        updatedReplicas: 1,
        readyReplicas: 1,
        availableReplicas: 1,
      },
      2,
    );
    const status = webAppStatus(webapp, rolling, { paused: false });
    expect(condition(status, 'Progressing')).toMatchObject({
      status: 'True',
      reason: 'RollingOut',
    });
    expect(condition(status, 'Available')).toMatchObject({
      status: 'False',
      message: '1 of 2 replicas ready',
    });
    const missing = webAppStatus(webapp, undefined, { paused: false });
    expect(condition(missing, 'Available')).toMatchObject({
      status: 'False',
      reason: 'DeploymentMissing',
    });
  });

  it('reports pause, failures and a rollout past its deadline', () => {
    expect(
      condition(webAppStatus(webapp, rolledOut, { paused: true }), 'Progressing'),
    ).toMatchObject({ status: 'False', reason: 'Paused' });
    expect(
      condition(
        webAppStatus(webapp, rolledOut, { paused: false, failure: 'forbidden' }),
        'Degraded',
      ),
    ).toMatchObject({
      status: 'True',
      reason: 'ApplyFailed',
      message: 'forbidden',
    });
    const stuck = deployment({
      conditions: [
        {
          type: 'Progressing',
          status: 'False',
          reason: 'ProgressDeadlineExceeded',
          message: 'too slow',
        },
      ],
    });
    expect(condition(webAppStatus(webapp, stuck, { paused: false }), 'Degraded')).toMatchObject({
      status: 'True',
      reason: 'ProgressDeadlineExceeded',
    });
  });

  it('says Conflict when an object of the WebApp’s name is someone else’s, with any failure beside it', () => {
    const deploymentTaken = 'Deployment hello exists and is not controlled by this WebApp';
    const status = webAppStatus(webapp, undefined, {
      paused: false,
      conflict: deploymentTaken,
      deploymentConflict: deploymentTaken,
      failure: 'services "hello" is forbidden',
    });
    expect(condition(status, 'Degraded')).toMatchObject({
      status: 'True',
      reason: 'Conflict',
      message: `${deploymentTaken}; services "hello" is forbidden`,
    });
    expect(condition(status, 'Available')).toMatchObject({
      status: 'False',
      reason: 'Conflict',
      message: deploymentTaken,
    });
    expect(condition(status, 'Progressing')).toMatchObject({ status: 'False', reason: 'Conflict' });
    // Only the Service taken: the Deployment is the WebApp's and rolls out as usual.
    const serviceTaken = webAppStatus(webapp, rolledOut, {
      paused: false,
      conflict: 'Service hello exists and is not controlled by this WebApp',
    });
    expect(condition(serviceTaken, 'Degraded')).toMatchObject({
      status: 'True',
      reason: 'Conflict',
    });
    expect(condition(serviceTaken, 'Available')).toMatchObject({ status: 'True' });
    expect(condition(serviceTaken, 'Progressing')).toMatchObject({ reason: 'RolloutComplete' });
  });

  it('keeps lastTransitionTime while a condition’s status stays, and moves it when the status changes', () => {
    const first = webAppStatus(webapp, rolledOut, { paused: false }, '2026-01-01T00:00:00Z');
    const withStatus = { ...webapp, status: first };
    const again = webAppStatus(withStatus, rolledOut, { paused: false }, '2026-01-01T00:05:00Z');
    expect(sameStatus(first, again)).toBe(true);
    // Paused: Progressing stays False (another reason), so its transition time stays too.
    const paused = webAppStatus(withStatus, rolledOut, { paused: true }, '2026-01-01T00:05:00Z');
    expect(condition(paused, 'Progressing')).toMatchObject({
      reason: 'Paused',
      lastTransitionTime: '2026-01-01T00:00:00Z',
    });
    expect(sameStatus(first, paused)).toBe(false);
    const failed = webAppStatus(
      withStatus,
      rolledOut,
      { paused: false, failure: 'x' },
      '2026-01-01T00:05:00Z',
    );
    expect(condition(failed, 'Available')?.lastTransitionTime).toBe('2026-01-01T00:00:00Z');
    expect(condition(failed, 'Degraded')?.lastTransitionTime).toBe('2026-01-01T00:05:00Z');
    expect(sameStatus(undefined, first)).toBe(false);
  });
});
